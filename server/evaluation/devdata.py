"""Where the development data sets live (the JSONL files `celltrace eval`, tests and benchmarks use).

`CELLTRACE_DATA_DIR` when set; otherwise `../shared/data` relative to the checkout, i.e. a folder
`shared/data` *beside* the repository (not the repository's own `shared/` package). Tests that need
the data are skipped when the folder does not exist.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "CELLTRACE_DATA_DIR"
CHECKOUT = Path(__file__).resolve().parents[2]


def dev_data_dir() -> Path:
    """The development data folder (see the module docstring)."""
    return Path(os.environ.get(DATA_ENV) or CHECKOUT.parent / "shared" / "data")
