"""stencilc: a compiler and runtime for out-of-core stencil simulations."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``stencilc.compile``, ``stencilc.Error`` (the base of every error the API raises, ``CompileError``
    among them), ``stencilc.Program``, ``stencilc.Simulation``: the Python API (embed.py);
    ``stencilc.snapshots``, ``stencilc.Snapshots``, ``stencilc.Saved``: a --save-to file read back
    (readback.py); imported on first use so that the command line stays light."""
    if name in ("compile", "Error", "CompileError", "Program", "Simulation"):
        from . import embed

        return getattr(embed, name)
    if name in ("snapshots", "Snapshots", "Saved"):
        from . import readback

        return getattr(readback, name)
    raise AttributeError(f"module 'stencilc' has no attribute {name!r}")
