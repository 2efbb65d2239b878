package partition

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Command is a request to a partition. Engines before record version 2
// logged accepted commands as they are (command records), together with
// every input that is not a pure function of the state (the processing
// time, the jobs chosen for an activation, the push decisions); such
// records are still replayed through the same processing code, with side
// effects suppressed. This engine logs each command's results instead
// (results.go), which recovery applies without processing anything.
type Command struct {
	// V is the record version (RecordVersion when logged; absent in logs
	// written before versions existed, read as 0).
	V   int    `json:"v,omitempty"`
	Op  string `json:"op"`
	Now int64  `json:"now"` // epoch ms, pinned when first processed

	Key int64 `json:"key,omitempty"` // job / instance / element instance / incident key

	// deploy; distribute (a deployment copied to another partition)
	Resources []Resource     `json:"res,omitempty"`
	Defs      []DefMeta      `json:"defs,omitempty"`
	DMN       []DecisionMeta `json:"dmn,omitempty"` // decision graphs (decisions.go)
	// evaluate (decision by Key or DecisionID)
	DecisionID string `json:"did,omitempty"`
	// create
	DefKey        int64  `json:"def,omitempty"`
	BpmnProcessID string `json:"pid,omitempty"`
	Version       int32  `json:"ver,omitempty"`
	Variables     string `json:"vars,omitempty"`
	Local         bool   `json:"local,omitempty"`
	// job commands
	Retries      int32  `json:"retries,omitempty"`
	Backoff      int64  `json:"backoff,omitempty"`
	Timeout      int64  `json:"timeout,omitempty"`
	ErrorCode    string `json:"ecode,omitempty"`
	ErrorMessage string `json:"emsg,omitempty"`
	Deadline     int64  `json:"deadline,omitempty"`
	// activation (pinned: the jobs chosen)
	Type    string  `json:"type,omitempty"`
	Worker  string  `json:"worker,omitempty"`
	JobKeys []int64 `json:"jobs,omitempty"`
	// message
	Name           string `json:"name,omitempty"`
	CorrelationKey string `json:"corr,omitempty"`
	MessageID      string `json:"mid,omitempty"`
	TTL            int64  `json:"ttl,omitempty"`
	// message subscriptions between partitions (messages.go)
	From            int32 `json:"from,omitempty"`
	Inst            int64 `json:"inst,omitempty"`
	Elem            int64 `json:"elem,omitempty"`
	Msg             int64 `json:"msg,omitempty"`
	NonInterrupting bool  `json:"nonint,omitempty"`
	// subclose: the messages the instance consumed through the subscription
	// (the message partition re-routes any other it had sent)
	Consumed []int64 `json:"consumed,omitempty"`
	// Latest pins the latest definition of each process a message start
	// decision looked at (bpmnProcessId → key, 0 = none): replay must not
	// see versions deployed after the command was first processed.
	Latest map[string]int64 `json:"latest,omitempty"`
	// push decisions made while processing (pinned for replay)
	Pushes []Push  `json:"push,omitempty"`
	Yields []int64 `json:"yield,omitempty"`
	// Ops: arguments of DeleteResource, ModifyProcessInstance,
	// MigrateProcessInstance and start instructions (ops.go).
	Ops *OpsArgs `json:"ops,omitempty"`
	// KeyMark is the key counter after the command: replay never lets the
	// counter fall below it.
	KeyMark int64 `json:"km,omitempty"`

	// Transient (not logged).
	MaxJobs        int32        `json:"-"`
	FetchVariables []string     `json:"-"`
	WithResult     bool         `json:"-"`
	Query          func(*State) `json:"-"`
	steps          int          // step budget used (exec.go)
	panicked       bool
	reply          chan Result `json:"-"`
	result         chan Result `json:"-"` // with-result completion
	replaying      bool
}

// RecordVersion is the version of the log records this engine writes.
// Replay reads every version up to it and refuses a newer one (a log
// written by a later engine) with a clear error instead of guessing.
//
// Version 0: command records without "v" (before versions existed).
// Version 1: the same command records, versioned. Both are replayed by
// running the processors over them (with the inputs pinned in the record).
// Version 2: results records (results.go): what each command changed,
// applied to the state without running any processing code. Records of
// versions 0 and 1 are still read, so an older data dir recovers and then
// continues with version 2 records.
// Version 3: results records in which an instance that already existed
// carries only the variables the command set ("dv", "vset"), not its whole
// variable document. Version 2 records (always the whole document) are
// still applied; an engine that reads only up to version 2 refuses a
// version 3 log instead of losing variables.
const RecordVersion = 3

// CommandRecordVersion is the newest version of command records (replayed
// through the processors); this engine only reads them.
const CommandRecordVersion = 1

// Push pins that a job was activated for a push stream.
type Push struct {
	Key      int64  `json:"k"`
	Worker   string `json:"w"`
	Deadline int64  `json:"d"`
}

// DefMeta names a definition created by a deployment on partition 1, so
// other partitions register it under the same key and version.
type DefMeta struct {
	Key           int64  `json:"key"`
	BpmnProcessID string `json:"pid"`
	Version       int32  `json:"ver"`
	ResourceName  string `json:"name"`
	DeploymentKey int64  `json:"dep"`
}

// Resource is a deployed file.
type Resource struct {
	Name    string `json:"name"`
	Content []byte `json:"content"`
}

// Result is a command's answer: a gateway response message or an error.
type Result struct {
	Resp any
	Err  error
}

// Operation names.
const (
	OpDeploy        = "deploy"
	OpDistribute    = "distribute" // a deployment copied from partition 1
	OpCreate        = "create"
	OpCancel        = "cancel"
	OpSetVariables  = "setvars"
	OpComplete      = "complete"
	OpFail          = "fail"
	OpThrowError    = "throw"
	OpUpdateRetries = "retries"
	OpUpdateTimeout = "jobtimeout"
	OpResolve       = "resolve"
	OpPublish       = "publish"
	OpActivate      = "activate"
	OpTimeOut       = "timeout" // timer: activation deadline passed
	OpRecur         = "recur"   // timer: retry back-off elapsed
	OpYield         = "yield"   // push could not be delivered
	OpReturn        = "return"  // activated jobs could not be handed to a poller
	OpQuery         = "query"   // admin read, not logged
	OpKeys          = "keys"    // key counter high-water mark (after a command that panicked)
)

// WireOps are the commands a gateway may send to a partition (cluster
// mode: over the broker port). Everything else (admin queries, key marks,
// timers) only ever originates inside the partition's own process.
var WireOps = map[string]bool{
	OpDeploy: true, OpDistribute: true, OpCreate: true, OpCancel: true, OpSetVariables: true, OpComplete: true,
	OpFail: true, OpThrowError: true, OpUpdateRetries: true, OpUpdateTimeout: true, OpResolve: true,
	OpPublish: true, OpActivate: true, OpYield: true, OpReturn: true,
	// message subscriptions between partitions of different brokers, which
	// a gateway relays (cluster.proto ForwardCommand)
	OpSubOpen: true, OpSubClose: true, OpSubCorrelate: true,
}

// intents gives Zeebe's intent names for rejection messages.
var intents = map[string]string{
	OpDeploy: "CREATE", OpDistribute: "DISTRIBUTE", OpCreate: "CREATE", OpCancel: "CANCEL", OpSetVariables: "UPDATE",
	OpComplete: "COMPLETE", OpFail: "FAIL", OpThrowError: "THROW_ERROR", OpUpdateRetries: "UPDATE_RETRIES",
	OpUpdateTimeout: "UPDATE_TIMEOUT", OpResolve: "RESOLVE", OpPublish: "PUBLISH", OpActivate: "ACTIVATE",
	OpTimeOut: "TIME_OUT", OpRecur: "RECUR_AFTER_BACKOFF", OpYield: "YIELD", OpReturn: "FAIL",
}

// Rejection types as Zeebe names them, with the gRPC code the gateway maps
// each to (facts §6.1).
const (
	RejNotFound        = "NOT_FOUND"
	RejInvalidState    = "INVALID_STATE"
	RejInvalidArgument = "INVALID_ARGUMENT"
	RejAlreadyExists   = "ALREADY_EXISTS"
)

func reject(op, typ, format string, a ...any) error {
	code := codes.Unknown
	switch typ {
	case RejNotFound:
		code = codes.NotFound
	case RejInvalidState:
		code = codes.FailedPrecondition
	case RejInvalidArgument:
		code = codes.InvalidArgument
	case RejAlreadyExists:
		code = codes.AlreadyExists
	}
	return status.Errorf(code, "Command '%s' rejected with code '%s': %s", intents[op], typ, fmt.Sprintf(format, a...))
}

// Reject builds a rejection error in Zeebe's format for the gateway's own
// checks (e.g. a key that names no partition).
func Reject(op, typ, format string, a ...any) error { return reject(op, typ, format, a...) }
