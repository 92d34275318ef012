#!/usr/bin/env python3
"""A scripted stand-in for an LLM server, for benchmarks of `loom train --controller llm`.

Speaks Ollama's /api/chat and OpenAI's /v1/chat/completions. It reads the JSON state Loom
sends (the text after the first line of the user message) and answers like a cautious agent:
evict when the buffer has empty slots while rows are missed, or when more than 5% of its rows
sit idle, unless the last measured eviction lowered the hit rate. Each answer takes --delay
seconds, like a small local model. Usage: scripted_llm.py [--port 11434] [--delay 0.2]
"""
import argparse
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def decide(state):
    w = state.get("window", {})
    recent = [d for d in state.get("recent_decisions", []) if d.get("decision") == "evict" and "after" in d]
    if recent and recent[-1]["after"]["hit_rate"] < recent[-1]["before"]["hit_rate"] - 0.01:
        return "keep", "the last eviction lowered the hit rate", "stable hit rate"
    if w.get("occupancy", 1) < 0.99 and w.get("hit_rate", 1) < 1:
        return "evict", "empty slots while halo rows are missed", "higher hit rate"
    if w.get("candidate_share", 0) > 0.05:
        return "evict", f"{100 * w['candidate_share']:.0f}% of rows idle", "fewer remote rows"
    return "keep", "buffer busy", "no change"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.reply({"models": []})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        text = body["messages"][-1]["content"]
        state = json.loads(text[text.index("\n") + 1 : text.rindex("}") + 1])
        decision, why, impact = decide(state)
        content = json.dumps({"decision": decision, "explanation": why, "expected_impact": impact})
        time.sleep(self.server.delay)
        if self.path.endswith("/chat/completions"):
            self.reply({"choices": [{"message": {"role": "assistant", "content": content}}]})
        else:
            self.reply({"message": {"role": "assistant", "content": content}})

    def reply(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.delay = args.delay
    server.serve_forever()
