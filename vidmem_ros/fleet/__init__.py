"""A fleet's shared memory, the cold tier behind each robot's own store: the records every robot sends and the
protocol of the store that holds them (``records``), that store on Milvus, embedded Milvus Lite or a server
(``milvus``), and the sync that sends what a robot's store committed and applies what it forgot (``sync``).  It
imports ``memory``, ``perception`` and the top-level configuration; never ``ingest``, ``agent``, rclpy, the
nodes or the command."""
