"""Excel add-in (xlwings, desktop): reads the selection, calls the local server, writes back."""
