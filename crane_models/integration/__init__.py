"""Time integration, the ground floor (numpy only; scipy for the reference solver alone): the FMUs' own steppers
(explicit pairs, the Rosenbrock-W stepper), their step control and its failures, the stiffness estimate that
chooses between them, the stepping :class:`CoSimulation` of one model and the standalone reference solver, and
the run description (:class:`scenario.Scenario`, the communication grid) and the checks of a restored state's
data against what a model allocates (``state_checks.py``). The core's compiled kernel takes its
tableaux and its step failures from here, so nothing here imports the core."""
