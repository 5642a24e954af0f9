"""After ``shutdown`` the server sends nothing: a debounced publish still pending when the
event loop closed wrote to the closed stream, and pygls, reporting that failure by writing
again, never ended (the process hung at exit after an edit just before shutdown)."""

from __future__ import annotations

from evalschema_server.server import create_server, on_shutdown


async def test_shutdown_cancels_the_publishes_still_pending() -> None:
    ls = create_server()
    ls.schedule("file:///w/a.eval.json")
    ls.schedule("file:///w/b.jsonl")
    handles = [*ls.pending.values(), *ls.warming.values()]
    assert len(handles) == 4  # a publish and a warm-up of each
    on_shutdown(ls, None)
    assert ls.pending == {} and ls.warming == {}
    assert all(h.cancelled() for h in handles)
    assert ls.shutdown_requested
