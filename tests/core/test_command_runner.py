"""One helper turns a command's ``async def run(args, profile)`` into its handler."""

from __future__ import annotations

import argparse

from acai_desktop.commands.runner import command_handler, profile_of
from acai_desktop.core.profile.paths import Profile


def test_the_work_runs_on_the_profile_named_by_data_dir(tmp_path):
    seen: list[Profile] = []

    @command_handler
    async def run(args: argparse.Namespace, profile: Profile) -> int:
        seen.append(profile)
        return 3

    assert run(argparse.Namespace(data_dir=str(tmp_path / "p"))) == 3
    assert [p.data_dir for p in seen] == [Profile.at(str(tmp_path / "p")).data_dir]


def test_without_data_dir_it_is_the_default_profile():
    assert profile_of(argparse.Namespace()).data_dir == Profile.at(None).data_dir
