"""Errors that are the user's input, not a bug: reported in one line (CLI exit code 2, HTTP 4xx)."""


class UserError(Exception):
    """Bad input (missing file, unknown sheet, malformed range, ...). The message is shown as is."""
