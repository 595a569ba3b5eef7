"""What any crane is made of: screw algebra, the Kane/projection-matrix system, cylinder loops, reaction wrenches,
constraint forces by auxiliary speeds, effort laws, springs, friction, programmed motion; ``native/`` the compiled
kernel. Nothing here knows a particular crane."""
