"""The run record (slicebench/run.py): the plan file round trip, the
boots' shares, the guest's flat file, and clear errors for bad input."""

import dataclasses
import json

import pytest

from slicebench import experiment as ex
from slicebench.run import RunError, boot_file, boot_runs, read_plan, write_plan


@pytest.fixture(scope="module")
def smoke():
    e = ex.load("smoke")
    return ex.plan(e, e.resolve({}), 8)


def test_a_plan_reads_back_as_written(smoke, tmp_path):
    write_plan(smoke, tmp_path / "plan.jsonl", {"seed": 8, "main_clients": 20})
    header, runs = read_plan(tmp_path / "plan.jsonl")
    assert header == {"slicebench_plan": 2, "seed": 8, "main_clients": 20}
    assert [r.to_json() for r in runs] == [r.to_json() for r in smoke]


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.pop("limit_s"), "no limit_s"),
    (lambda d: d.update(colour="blue"), "unknown field(s) colour"),
    (lambda d: d.update(testbed="cloud"), "testbed 'cloud'"),
    (lambda d: d.update(repeat=-1), "repeat is not a whole number"),
    (lambda d: d.update(id="a b"), "id 'a b' is empty or holds a space"),
    (lambda d: d["knobs"].pop("grant"), "knobs"),
    (lambda d: d.update(command=[]), "no command"),
])
def test_a_bad_record_names_its_line_and_field(smoke, tmp_path, edit, message):
    write_plan(smoke[:3], tmp_path / "plan.jsonl", {"seed": 1})
    lines = (tmp_path / "plan.jsonl").read_text().splitlines()
    d = json.loads(lines[2])
    edit(d)
    lines[2] = json.dumps(d)
    (tmp_path / "plan.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(RunError) as e:
        read_plan(tmp_path / "plan.jsonl")
    assert "plan.jsonl:3: " in str(e.value) and message in str(e.value)


def test_a_file_that_is_not_a_plan(tmp_path):
    (tmp_path / "p").write_text("id\trepeat\n")
    with pytest.raises(RunError, match="p:1: not JSON"):
        read_plan(tmp_path / "p")
    (tmp_path / "p").write_text('{"seed": 1}\n')
    with pytest.raises(RunError, match="not a slicebench plan header"):
        read_plan(tmp_path / "p")


def test_each_boot_runs_its_share_of_the_repeats(smoke):
    e = ex.load("smoke")
    runs = ex.plan(e, e.resolve({"repeats": 3}), 8)
    one, two = boot_runs(runs, "parallel", 1, 2), boot_runs(runs, "parallel", 2, 2)
    assert {r.repeat for r in one} == {1, 3} and {r.repeat for r in two} == {2}
    assert len(one) + len(two) == len([r for r in runs if r.testbed == "parallel" and r.boot == "sweep"])
    with pytest.raises(RunError):
        boot_runs(runs, "parallel", 3, 2)


def test_the_guests_flat_file(smoke):
    text = boot_file(smoke[:2], [("UNITS", ["locktable", "--calibrate"])])
    lines = text.splitlines()
    assert lines[1] == "setup UNITS locktable --calibrate"
    r = smoke[0]
    knobs = ["-" if r.knobs[k] is None else str(r.knobs[k]) for k in ("abi", "grant", "ext_ns", "rt_policy")]
    assert lines[2].split() == ["run", r.id, str(r.limit_s)] + knobs + r.command


def test_a_word_the_guests_shell_would_split_is_refused(smoke):
    r = dataclasses.replace(smoke[0], command=["locktable", "--name", "a b"])
    with pytest.raises(RunError, match="not a plain shell word"):
        boot_file([r])
    r.command = ["sh", "-c", "$(reboot)"]
    with pytest.raises(RunError, match="not a plain shell word"):
        boot_file([r])
