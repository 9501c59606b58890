"""Something run once in every thread of a pool: how the thread pools of games/live, which render
and write on database connections of their own, have each of their threads give its connection
back, after what it is doing."""

import threading


def in_each_thread(executor, threads, function):
    """Run `function` once in each of the `threads` threads of `executor` (a barrier holds each call
    until all of them have one, so that no thread takes two), after the work each is doing, and
    wait for them. False, with nothing run, once the interpreter is exiting: concurrent.futures
    then takes no more work, and has joined the pools' threads before the atexit functions run."""
    barrier = threading.Barrier(threads, timeout=10)

    def each():
        barrier.wait()
        function()

    try:
        calls = [executor.submit(each) for _ in range(threads)]
    except RuntimeError:  # "cannot schedule new futures after interpreter shutdown"
        return False
    for done in calls:
        done.result(timeout=30)
    return True
