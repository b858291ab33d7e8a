"""The ``vidmem`` command a robot runs: start the nodes (``up``), ask them (``ask``), play a bag into them
(``replay``), evaluate on a bag (``eval``, ``report``), print ROS parameter files (``params``), check a store
(``doctor``).  It sits above the library and may import any of it; nothing in the library imports it."""
