"""Above the FMI layer: what drives FMUs -- the fmpy runners and comparison tools (``runs.py``), the split
co-simulation masters, the FMI cross-check results, FMUs unpacked once per process."""
