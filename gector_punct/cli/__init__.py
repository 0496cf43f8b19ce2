"""The package's command lines, above every other part: predict.py's command (``predict``: flags, the input
routed by its kind to its reader and format, exit statuses; ``interrupts``: Ctrl-C in a stream), installed as
``gector-punct`` too."""
