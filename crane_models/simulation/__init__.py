"""Integrators, the stepping co-simulation and the standalone reference solver, scenarios, runners and comparison
tools, the split co-simulation masters."""
