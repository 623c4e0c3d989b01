"""`celltrace excel install`: build the add-in, install it with xlwings, point it at this Python.

1. `build_xlam.build()` writes `celltrace.xlam` (ribbon tab "celltrace") next to the settings.
2. `xlwings addin install --file celltrace.xlam` copies it to Excel's XLSTART folder (and, on macOS,
   installs the RunPython AppleScript).
3. The interpreter (this Python, which has celltrace installed) goes into the add-in's user
   settings: `%USERPROFILE%\\.celltrace\\celltrace.conf` (`INTERPRETER_WIN`) on Windows,
   `~/Library/Containers/com.microsoft.Excel/Data/celltrace.conf` (`INTERPRETER_MAC`) on macOS,
   in xlwings' `"KEY","value"` format; other keys in the file are kept.

Only Windows and macOS have Excel; elsewhere the command stops with one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from celltrace.addin.build_xlam import PROJECT_NAME, build
from celltrace.shared.errors import UserError

NO_EXCEL = (
    "celltrace excel needs Microsoft Excel on Windows or macOS (xlwings cannot reach Excel on {platform}); "
    "for workbook files use `celltrace ask WORKBOOK QUESTION`"
)


def require_excel_platform() -> None:
    if not (sys.platform.startswith("win") or sys.platform == "darwin"):
        raise UserError(NO_EXCEL.format(platform=sys.platform))


def user_config_path(platform: str = sys.platform, home: Path | None = None) -> Path:
    """Where the add-in's VBA (`GetConfigFilePath`) looks for user settings."""
    home = home or Path.home()
    if platform == "darwin":
        return home / "Library" / "Containers" / "com.microsoft.Excel" / "Data" / f"{PROJECT_NAME}.conf"
    return home / f".{PROJECT_NAME}" / f"{PROJECT_NAME}.conf"


def set_config(path: Path, key: str, value: str) -> None:
    """Set `"KEY","value"` in an xlwings-style config file, keeping every other line."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    entry = f'"{key}","{value}"'
    lines = [line for line in lines if not line.upper().startswith(f'"{key.upper()}",')] + [entry]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def install(directory: Path | None = None) -> list[str]:
    """Build and install the add-in; returns what was done, one line each."""
    require_excel_platform()
    config = user_config_path()
    xlam = build((directory or config.parent) / f"{PROJECT_NAME}.xlam")
    done = [f"built {xlam}"]
    command = [sys.executable, "-m", "xlwings.cli", "addin", "install", "--file", str(xlam)]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise UserError(f"xlwings addin install failed: {(run.stderr or run.stdout).strip()[-300:]}")
    done.append(run.stdout.strip() or "installed the add-in with xlwings")
    key = "INTERPRETER_MAC" if sys.platform == "darwin" else "INTERPRETER_WIN"
    set_config(config, key, sys.executable)
    done.append(f"set {key} in {config} to {sys.executable}")
    return done
