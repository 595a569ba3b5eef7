"""The command line (``crane-cosim``) and the demo: thin layers over the library."""
