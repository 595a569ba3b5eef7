"""What every crane on a moving base (a ship) needs, whichever crane it is: the Euler angles of the base and their
rates (``euler.py``, eq. (53)), the base as bodies of a tree (``base_chain.py``), the motion and load interface
between vessel and crane (``interface.py``), the interface inertia ``W = W0 − A a`` (``interface_inertia.py``), the
ship's axis conventions and mounting (``ship.py``) and the demo's sea motion (``sea_motion.py``)."""
