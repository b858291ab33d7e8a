"""Developer tooling, not part of what a robot installs: benchmarks (``vidmem bench``), the sample patrol and its
question set (``sample_bag``, ``sample_questions``, ``sample_patrol``; ``vidmem make-bag``), synthetic frames and
signs (``synth``, ``sample_images``) and the demo (``vidmem demo``).  It may import the library and the command;
neither imports it."""
