"""From a sensor message or a bag record to a perceived frame the memory engine keeps: decoding images and
audio (``frames``, ``messages``, ``audio``), checking and routing each message (``intake``), the gates that
decide which frames are worth perceiving (``gates``), the worker that runs perception and hands frames to the
engine (``worker``), the pose samples that place each frame and the path kept in the store (``poses``), the
buffer that holds frames while models warm up (``startup_buffer``), the figures and health of the stream
(``stats``, ``health``), and the bag reader and bag replay the evaluator uses (``bag_reader``, ``bag``).  It
imports ``memory``, ``perception`` and the top-level configuration; never ``agent``, ``evaluation``, rclpy,
the nodes or the command."""
