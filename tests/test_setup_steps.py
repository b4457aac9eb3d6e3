"""A test that needs one of ``scripts/test``'s set-up steps waits for its status file."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from setup_steps import ready


def test_without_the_variable_there_is_nothing_to_wait_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FOEHN_TEST_SETUP", raising=False)
    ready("e2e", within=0)


def test_a_step_is_waited_for_until_it_ends_well(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOEHN_TEST_SETUP", str(tmp_path))
    ending = threading.Timer(0.3, (tmp_path / "e2e.status").write_text, ["0\n"])
    ending.start()
    ready("e2e", within=60)
    assert (tmp_path / "e2e.status").exists()  # returned only once the step had ended
    ending.join()


def test_a_failed_step_fails_the_test_with_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOEHN_TEST_SETUP", str(tmp_path))
    (tmp_path / "e2e.err").write_text("npm error code ENOENT\n")
    (tmp_path / "e2e.status").write_text("1\n")
    with pytest.raises(pytest.fail.Exception, match=r"'e2e' failed \(exit 1\):\nnpm error code"):
        ready("e2e")


def test_a_step_that_does_not_end_is_a_failure_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOEHN_TEST_SETUP", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="'model' did not end within 1 s"):
        ready("model", within=1)
