from pathlib import Path

import pytest

from vidmem_ros.config import load_config, profile_path, setting_overrides
from vidmem_ros.errors import ConfigError


@pytest.mark.parametrize("profile", ["cpu", "gpu"])
def test_shipped_profiles_validate(profile: str) -> None:
    config = load_config(profile_path(profile))
    assert config.profile == profile
    assert config.ingest.sample_fps > 0


def test_overrides_apply_and_are_validated() -> None:
    config = load_config(overrides={"ingest.sample_fps": 2.5})
    assert config.ingest.sample_fps == 2.5
    with pytest.raises(ConfigError, match=r"ingest\.sample_fps"):
        load_config(overrides={"ingest.sample_fps": -1})


def test_settings_given_on_a_command_line_are_read_as_yaml_and_validated() -> None:
    pairs = ["face.backend=dlib", "ingest.sample_fps=2.5", "face.model_dir="]
    assert setting_overrides(pairs) == {"face.backend": "dlib", "ingest.sample_fps": 2.5, "face.model_dir": ""}
    config = load_config(overrides=setting_overrides(pairs))
    assert (config.face.backend, config.ingest.sample_fps) == ("dlib", 2.5)
    for bad in ("face.backend", "=dlib", "face.backend=[dlib"):
        with pytest.raises(ConfigError, match="setting"):
            setting_overrides([bad])
    with pytest.raises(ConfigError, match=r"face\.backend"):
        load_config(overrides=setting_overrides(["face.backend=opencv"]))
    with pytest.raises(ConfigError, match="backnd"):
        load_config(overrides=setting_overrides(["face.backnd=dlib"]))


def test_unknown_settings_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("ingest:\n  sample_fsp: 2.0\n")
    with pytest.raises(ConfigError, match="sample_fsp"):
        load_config(bad)


def test_unreadable_or_malformed_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing\.yaml"):
        load_config(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("ingest: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(broken)


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown profile"):
        profile_path("tpu")


def test_cli_commands_use_the_package_dds_profile_unless_one_is_set() -> None:
    from vidmem_ros.command.launcher import FASTDDS_PROFILE, use_package_dds_profile

    assert use_package_dds_profile({})["FASTRTPS_DEFAULT_PROFILES_FILE"] == str(FASTDDS_PROFILE)
    own = {"FASTRTPS_DEFAULT_PROFILES_FILE": "/etc/robot/dds.xml"}
    assert use_package_dds_profile(own)["FASTRTPS_DEFAULT_PROFILES_FILE"] == "/etc/robot/dds.xml"
