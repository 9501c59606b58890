"""The JSON codec of the game's stored state and events (orjson), kept free of Django so that the
benchmarks measure exactly what the site does.

Python's json module costs more than the rules themselves on every move (bench/state.py: about
2.9 times apply_move to decode, encode and store a state), while orjson does the same work several
times faster and reads and writes the same JSON.
"""

import orjson


def dumps(value):
    return orjson.dumps(value).decode()


loads = orjson.loads
DecodeError = orjson.JSONDecodeError
