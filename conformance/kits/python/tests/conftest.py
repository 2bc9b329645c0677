"""Makes the kit importable from a checkout (no install needed) and shares small helpers."""
import asyncio
import os
import sys

KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, KIT)


def run(coro):
    """Runs one coroutine to its end on a fresh event loop."""
    return asyncio.run(coro)
