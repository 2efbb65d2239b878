# jobwire monorepo. Two commands matter: `make run` and `make test`.
# Everything else delegates to the component's own build.
SHELL := /bin/bash
ROOT := $(abspath .)
RESULTS ?= $(ROOT)/.test-results
export PATH := $(ROOT)/.tools/bin:$(PATH)
PY := $(ROOT)/.tools/venv/bin/python

.PHONY: help run test lint docs generate check-generated bootstrap \
        test-proto test-tree test-docs test-engine test-corpus test-sdk-go test-sdk-node test-sdk-python test-sdk-java \
        test-conformance test-mutation-smoke test-vector-mutants test-release release test-conformance-external test-examples test-ui test-bench test-soak soak conformance conformance-external conformance-report conformance-peers interop engine bench bench-typed bench-engine bench-storage bench-ui fuzz

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*?## "}{printf "  %-20s %s\n", $$1, $$2}'

bootstrap: ## install pinned tools into .tools/ (done by every target that needs them)
	@tools/bootstrap.sh

run: bootstrap ## start the engine and the example workers of every SDK, drive instances, show progress
	@examples/run.sh

test: bootstrap ## install everything, run every suite, print a summary line
	@tools/run-tests.sh

lint: bootstrap ## buf lint + format check, go vet, TypeScript typecheck
	tools/node_modules/.bin/buf lint
	tools/node_modules/.bin/buf format --diff --exit-code
	cd engine-reference && go vet ./...
	cd sdk-go && go vet ./...
	cd sdk-node && ([ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error) && npm run --silent typecheck

docs: bootstrap ## API reference of every SDK into build/docs/{node,java,python,go} (TypeDoc, Javadoc, pdoc, go doc); fails on any warning, undocumented public member or broken link
	@$(PY) tools/docs.py

generate: bootstrap ## regenerate all code derived from proto/
	@tools/generate.sh

check-generated: ## fail when generated code is stale
	@tools/generate.sh >/dev/null && git diff --exit-code --stat -- proto sdk-go/internal/pb engine-reference/internal/pb sdk-python/src/jobwire/_proto sdk-node/src/generated sdk-node/proto sdk-java/src/main/proto sdk-java-test/src/main/proto \
	  || { echo "generated code is stale: run 'make generate' and commit"; exit 1; }

# --- suites (each writes results into $(RESULTS)) ---------------------------
test-proto: bootstrap ## contract: buf lint, breaking check, Zeebe compatibility, stale generated code
	@$(PY) -m pytest -q proto/compat --junitxml=$(RESULTS)/proto.xml

engine: ## build engine-reference/bin/jobwire-engine
	cd engine-reference && go build -o bin/jobwire-engine ./cmd/jobwire-engine

test-tree: bootstrap ## only sources in git: no tracked binary or build output, user pages without commit hashes or issue references, and the suites left git status clean (runs last)
	@$(PY) -m pytest -q -p no:cacheprovider tools/test_check_docs.py --junitxml=$(RESULTS)/tree/docs.xml
	@$(PY) tools/check_tree.py --self-test --clean --junit $(RESULTS)/tree.xml

test-docs: bootstrap ## make docs as a suite: one test per SDK (its reference builds with no warning, no undocumented public member, no broken link)
	@$(PY) tools/docs.py --junit $(RESULTS)/docs/docs.xml

test-engine: bootstrap ## engine-reference: go test (race) + pyzeebe interop
	@engine-reference/scripts/test.sh

test-corpus: ## engine-reference/corpus: every BPMN/DMN case on jobwire-engine dev and cluster against its golden Zeebe 8.8.21 observations
	@engine-reference/scripts/test-corpus.sh

fuzz: bootstrap ## long fuzzing: every Gateway RPC, BPMN, variables (engine) and the SDKs' variable parsing; FUZZ_TIME=10m each
	@tools/fuzz.sh

bench: engine ## every SDK beside the official client of its language, on jobwire-engine, 9 workloads, workloads 1 and 9 in 3 alternated rounds, with the floor (go-raw) and the engine ceiling: bench/results/ (page, JSON, plots; ~35 min; BENCH_ARGS="--scale 0.5", "--rounds 5", "--sdks python", "--compare <git-ref>": A/B of two builds)
	@bench/bootstrap.sh && bench/.venv/bin/python bench/bench.py $(BENCH_ARGS)

bench-typed: engine ## typed handler vs plain handler, each jobwire SDK's no-op worker side by side (A/B, alternated; target: typed ≥ 0.90× jobs/s): .bench-work/typed-ab/ (~10 min; BENCH_ARGS="--sdks go --rounds 5")
	@bench/bootstrap.sh && bench/.venv/bin/python bench/bench.py --typed-ab --threshold 0.10 $(BENCH_ARGS)

test-bench: bootstrap engine ## make bench, smoke: every client once on the jobwire engine, parked jobs, fairness, an A/B compare; checks the JSON, plots and page
	@$(PY) -m pytest -q bench/test_smoke.py bench/test_compare.py bench/test_interop_smoke.py --junitxml=$(RESULTS)/bench.xml

interop: bootstrap engine ## every official client (Go, Node with gzip, pyzeebe, Java) unchanged against jobwire-engine dev and cluster: deploy, 1,000 instances, poll and push (bench/results/interop/; ~10 min)
	@bench/bootstrap.sh && $(PY) bench/interop.py $(INTEROP_ARGS)

soak: bootstrap engine ## every SDK's workers on the secured cluster, a fault every minute in rotation; report JSON + plot in tools/soak/results/latest (SOAK_MINUTES=10, SOAK_SDKS, SOAK_FAULTS, SOAK_RATE)
	@$(PY) tools/soak/soak.py $(SOAK_ARGS)

test-soak: bootstrap engine ## make soak, smoke: 45 s, every SDK, two fault kinds; checks nothing is lost and the report (~75 s)
	@$(PY) -m pytest -q tools/soak/test_smoke.py --junitxml=$(RESULTS)/soak.xml

bench-engine: engine ## engine benchmark alone (prints instances/s, latency, fsyncs/s)
	engine-reference/bin/jobwire-engine bench

bench-storage: engine ## engine storage: restart time and RSS after 10k/100k/1M finished instances (several minutes)
	engine-reference/bin/jobwire-engine storage-bench

test-sdk-go: bootstrap engine ## sdk-go: go test -race against the reference engine
	@sdk-go/scripts/test.sh

test-sdk-node: bootstrap engine ## sdk-node: jest against the reference engine
	@sdk-node/scripts/test.sh
	@sdk-node-nestjs/scripts/test.sh

test-sdk-python: bootstrap engine ## sdk-python: pytest (unit, fake gateway, reference engine, real Zeebe, packaging, mypy --strict)
	@sdk-python/scripts/test.sh

test-sdk-java: bootstrap engine ## sdk-java: mvn test (unit + engine integration) and the packaging test; then the jobwire-test kit and the Spring Boot starter
	@sdk-java/scripts/test.sh
	@sdk-java-test/scripts/test.sh
	@JOBWIRE_SDK_INSTALLED=1 sdk-java-spring/scripts/test.sh

test-conformance: conformance
conformance: bootstrap engine ## conformance matrix (every SDK x scenario) on the reference engine; report in $(RESULTS)/conformance-report/
	@conformance-tests/scripts/run.sh

conformance-report: bootstrap engine ## the whole conformance matrix, then publishes its report as conformance-tests/report/matrix.md/.html/.json (~15 min)
	@conformance-tests/scripts/run.sh --publish

conformance-peers: bootstrap engine ## the official clients (Go, Node, Python, Java) as reference columns of the conformance matrix, strict known-failing lists (expectations/official-*.yaml); report/peers/ (~40 min)
	@conformance-tests/scripts/run.sh --peers

conformance-mutation: bootstrap engine ## mutation proof: every mutant of conformance-tests/mutation/mutants.yaml must fail its scenarios (scratch clone; ~15 min)
	@$(PY) conformance-tests/scripts/mutation.py --clone $${MUTATION_CLONE:-/tmp/jobwire-mutants} --out $(RESULTS)/mutation-results.md --json $(RESULTS)/mutation-results.json

# A few representative mutants (Go: capacity ledger, close drain; Node: stream read gate, TLS host name) in a fresh temp clone.
MUTATION_SMOKE ?= go-ledger-10x,go-close-cancels-stream-without-drain,node-stream-not-paused,node-tls-no-hostname-check
test-mutation-smoke: bootstrap engine ## mutation proof, smoke: a few mutants must fail their scenarios (fresh temp clone; ~3 min)
	@d=$$(mktemp -d "$${TMPDIR:-/tmp}/jobwire-mutation-smoke.XXXXXX") && \
	  $(PY) conformance-tests/scripts/mutation.py --clone $$d/clone --discard --only $(MUTATION_SMOKE) \
	    --junit $(RESULTS)/mutation-smoke.xml --out $(RESULTS)/mutation-smoke.md; rc=$$?; rm -rf "$$d"; exit $$rc

release: bootstrap engine ## every artifact of the version in VERSION into dist/, reproducibly: engine for 6 platforms, wheel+sdist, npm tarball, Java jars+POM, Go modules in the proxy's format, SHA256SUMS (~4 min)
	@tools/release/release.sh

test-release: bootstrap engine ## make release, smoke: one version everywhere, two builds byte-identical (engine for linux/amd64 only), the getting-started pages run as written in new projects that install the SDK and the engine from dist/ alone (100 orders each); the engine packages' own tests (~4 min)
	@mkdir -p $(RESULTS)/release
	@cd packaging/engine/java && mvn -o -q -B test; rc=$$?; cp target/surefire-reports/TEST-*.xml $(RESULTS)/release/ 2>/dev/null; exit $$rc
	@$(PY) -m pytest -q -p no:cacheprovider -s tools/release --junitxml=$(RESULTS)/release.xml

test-vector-mutants: bootstrap engine ## shared vectors, mutation proof: each mutant of conformance-tests/vectors/mutants.yaml (an old poll-slot model, a poll that parks) must fail its SDK's vector tests (scratch copies, two at a time; ~2 min)
	@$(PY) conformance-tests/scripts/vector_mutants.py --junit $(RESULTS)/vector-mutants.xml

conformance-external: bootstrap ## conformance against your own gateway (ZEEBE_ADDRESS, ZEEBE_CLIENT_ID/SECRET, ...; docs/conformance.md): every scenario needing neither admin API nor fault proxy, every SDK; $(RESULTS)/conformance-external/report.md
	@conformance-tests/scripts/run.sh --external

test-conformance-external: bootstrap engine ## the external-gateway lane against jobwire-engine dev with the admin API off, TLS and OAuth on
	@conformance-tests/scripts/run.sh --external --local-engine

.PHONY: licences test-licences
licences: bootstrap ## licences of every dependency tree (Go, npm, Python, Maven) against tools/licences/policy.yaml; writes docs/licences.md
	@$(PY) tools/licences/check.py --docs

test-licences: bootstrap ## licence policy: one test per dependency tree, and a planted vendor-terms dependency must fail
	@$(PY) -m pytest -q -p no:cacheprovider tools/licences/test_licences.py --junitxml=$(RESULTS)/licences.xml

test-examples: bootstrap engine ## examples smoke test against the engine
	@examples/scripts/test.sh

test-ui: ## engine live view: browser test in headless Debian chromium (installs chromium + playwright-core when missing)
	@engine-reference/ui-test/run.sh test

bench-ui: ## engine live view: commit -> page latency (p50/p99) at 500 instances/s through headless chromium
	@engine-reference/ui-test/run.sh bench $(BENCH_UI_ARGS)
