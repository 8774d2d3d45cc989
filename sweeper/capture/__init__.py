"""A host's own block I/O, captured and turned into workload classes.

``sampler`` records ``/proc/diskstats`` each second (and, where the kernel's block tracer can
be used, every request's direction, size, place and service time, summed per second) into a
capture file (``format``: JSON lines, a header first). ``seconds`` reads a capture back as one
record per second, ``phases`` finds where the workload changes, ``bins`` puts sizes and depths
into the matrix's vocabulary and ``characterize`` turns each phase into a workload class with
its explanation (``classfile`` writes it)."""
