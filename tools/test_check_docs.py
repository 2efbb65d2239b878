"""tools/check_docs.py: the user pages are clean, and the check catches what it must."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import check_docs  # noqa: E402


def test_user_pages_are_clean():
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "check_docs.py")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout


def test_catches_hashes_and_issue_references(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Fixed in 5e90ea1 (see issue 31, and #12).\nMeasured at 2c7a4829f0e1b.\n")
    found = _findings(page)
    assert any("5e90ea1" in f for f in found)
    assert any("2c7a4829f0e1b" in f for f in found)
    assert any("issue 31" in f for f in found)
    assert any("#12" in f for f in found)


def test_lets_facts_pass(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Users ask for it: camunda/camunda #4700, pyzeebe #667, #98. A pseudo-version "
                    "v0.0.0-20250804133106-a7a43d27e69b, a card 4000000000000002, 1e2147483648, sha256 "
                    + "ab" * 32 + ".\n")
    assert _findings(page) == []


def _findings(page):
    orig = check_docs.ROOT
    check_docs.ROOT = page.parent
    try:
        return check_docs.findings(page)
    finally:
        check_docs.ROOT = orig


def test_catches_broken_relative_links(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## Sending outcomes\n")
    page = tmp_path / "page.md"
    page.write_text("See [the other page](other.md), [a section](other.md#sending-outcomes) and\n"
                    "[the site](https://example.org/missing.md).\n"
                    "Planted: [gone](missing.md), ![img](img/none.png), [bad anchor](other.md#no-such-part).\n"
                    "[ref]: ./nowhere/README.md\n"
                    "```\n[in code](also-missing.md)\n```\n"
                    "Inline code is not a link: `[x](y.md)`.\n")
    found = _findings(page)
    assert any("missing.md (no such file)" in f for f in found), found
    assert any("img/none.png (no such file)" in f for f in found), found
    assert any("other.md#no-such-part (no such heading)" in f for f in found), found
    assert any("./nowhere/README.md (no such file)" in f for f in found), found
    assert len(found) == 4, found
