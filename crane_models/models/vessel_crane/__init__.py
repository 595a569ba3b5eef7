"""The crane on a moving vessel (Cibicik & Egeland, constraint forces by auxiliary generalized
speeds): the monolithic model, the split pair for ship co-simulation, their FMUs and demo scenario."""

ORDER = 2  # place in listings (build, demo)
