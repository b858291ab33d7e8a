"""The ROS 2 shell: the ingest and query nodes, message conversion, parameters declared from the typed settings,
the tf2 pose lookup, the executor runtime and a client for the services.  The nodes convert messages and call the
library (``ingest``, ``intake``, ``memory``, ``agent``); only this package and the command import rclpy."""
