"""The wheel's explicit package list covers every package folder (a missing one breaks installs)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for package, folder in config["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *rel)))
    assert found == listed


def test_prompt_templates_are_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "*.txt" in config["package-data"]["celltrace.prompts"]
    assert list((ROOT / "prompts").glob("*.txt"))


def test_addin_web_files_are_package_data() -> None:
    from celltrace.server.api.addin import ASSETS

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "web/*" in config["package-data"]["celltrace.addin"]
    shipped = {p.name for p in (ROOT / "addin" / "web").iterdir()}
    assert {*ASSETS, "manifest.xml"} == shipped
