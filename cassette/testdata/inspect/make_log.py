"""Writes the Inspect AI eval logs of the cassette corpus, in both of Inspect's
formats, from the EvalLog below: a task "sum" of one sample ("What is 2 + 3?")
run for 2 epochs on an agent that calls get-sum of server-everything once and
answers. inspect_ai itself cannot be installed where these were made (its
package index is out of reach), so the log is written here field by field as
inspect_ai's pydantic models dump it (EvalLog, EvalSample, ChatMessage*,
ToolCall, ModelOutput, ModelUsage, events; None fields left out, indent 2), and
the .eval archive as inspect_ai's EvalRecorder lays it out (header.json,
_journal/start.json, _journal/summaries/1.json, summaries.json, reductions.json,
samples/<id>_epoch_<n>.json; zipfile, ZIP_DEFLATED, compresslevel 5).

Usage: python3 make_log.py OUT_DIR  (writes inspect_sum_log.json and
inspect_sum.eval)."""
import json
import sys
import zipfile

MODEL = "openai/gpt-4o-mini"
EXACT = "gpt-4o-mini-2024-07-18"


def usage(i, o, cached=0):
    u = {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}
    if cached:
        u["input_tokens_cache_read"] = cached
    return u


def sample(epoch, uid):
    call = {"id": f"call_sum{epoch}", "function": "get-sum", "arguments": {"a": 2, "b": 3}, "type": "function"}
    answer = {"id": f"msg-a2-{epoch}", "content": "The sum is 5.", "source": "generate", "role": "assistant", "model": EXACT}
    messages = [
        {"id": f"msg-s-{epoch}", "content": "You add numbers with the tools you have.", "source": "input", "role": "system"},
        {"id": f"msg-u-{epoch}", "content": "What is 2 + 3?", "source": "input", "role": "user"},
        {"id": f"msg-a1-{epoch}", "content": "", "source": "generate", "role": "assistant", "tool_calls": [call], "model": EXACT},
        {"id": f"msg-t-{epoch}", "content": [{"type": "text", "text": "The sum of 2 and 3 is 5."}], "role": "tool",
         "tool_call_id": f"call_sum{epoch}", "function": "get-sum"},
        answer,
    ]
    u1, u2 = usage(120, 18, cached=64), usage(150, 7)
    total = {"input_tokens": 270, "output_tokens": 25, "total_tokens": 295, "input_tokens_cache_read": 64}
    events = [
        {"uuid": f"ev-init-{epoch}", "span_id": f"sp-{epoch}", "timestamp": "2026-11-28T18:00:00.100000+00:00",
         "working_start": 0.0, "pending": None, "event": "sample_init",
         "sample": {"input": "What is 2 + 3?", "target": "5", "id": 1}, "state": {"messages": messages[:2]}},
        {"uuid": f"ev-m1-{epoch}", "span_id": f"sp-{epoch}", "timestamp": "2026-11-28T18:00:00.200000+00:00",
         "working_start": 0.1, "event": "model", "model": MODEL, "role": None, "input": messages[:2],
         "tools": [{"name": "get-sum", "description": "Returns the sum of two numbers",
                    "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                                   "required": ["a", "b"], "additionalProperties": False}}],
         "tool_choice": "auto", "config": {},
         "output": {"model": EXACT, "choices": [{"message": messages[2], "stop_reason": "tool_calls"}], "usage": u1, "time": 0.4},
         "cache": None},
        {"uuid": f"ev-t-{epoch}", "span_id": f"sp-{epoch}", "timestamp": "2026-11-28T18:00:00.700000+00:00",
         "working_start": 0.6, "event": "tool", "type": "function", "id": f"call_sum{epoch}", "function": "get-sum",
         "arguments": {"a": 2, "b": 3}, "result": [{"type": "text", "text": "The sum of 2 and 3 is 5."}],
         "truncated": None, "view": None, "error": None, "events": [], "completed": "2026-11-28T18:00:00.750000+00:00",
         "working_time": 0.05, "agent": None, "failed": None},
        {"uuid": f"ev-m2-{epoch}", "span_id": f"sp-{epoch}", "timestamp": "2026-11-28T18:00:00.800000+00:00",
         "working_start": 0.7, "event": "model", "model": MODEL, "input": messages[:4], "tools": [], "tool_choice": "auto",
         "config": {}, "output": {"model": EXACT, "choices": [{"message": answer, "stop_reason": "stop"}], "usage": u2, "time": 0.3},
         "cache": None},
    ]
    return {
        "id": 1, "epoch": epoch, "input": "What is 2 + 3?", "target": "5",
        "messages": messages,
        "output": {"model": EXACT, "choices": [{"message": answer, "stop_reason": "stop"}], "completion": "The sum is 5.",
                   "usage": u2, "time": 0.3},
        "scores": {"includes": {"value": "C", "answer": "The sum is 5.", "explanation": "The sum is 5.", "history": []}},
        "metadata": {}, "store": {}, "events": strip(events), "model_usage": {MODEL: total},
        "started_at": "2026-11-28T18:00:00.100000+00:00", "completed_at": "2026-11-28T18:00:01.100000+00:00",
        "total_time": 1.0, "working_time": 0.9, "uuid": uid, "error_retries": [], "attachments": {},
    }


def strip(v):
    # pydantic's exclude_none
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


eval_spec = {
    "eval_id": "7bXb2rJVd5HvYyGfNqLXoM", "run_id": "Kf3mHnUq6YtZ9cVxWpRa2s", "created": "2026-11-28T18:00:00+00:00",
    "task": "sum", "task_id": "NrV8uQ2cEwXkLp5mTjB7hd", "task_version": 0, "task_file": "sum_task.py",
    "task_registry_name": "sum", "task_attribs": {}, "task_args": {}, "task_args_passed": {}, "solver_args_passed": {},
    "dataset": {"samples": 1, "sample_ids": [1], "shuffled": False},
    "model": MODEL, "model_generate_config": {}, "model_args": {},
    "config": {"epochs": 2, "epochs_reducer": ["mean"], "fail_on_error": True, "continue_on_fail": False,
               "sandbox_cleanup": True, "log_samples": True, "log_realtime": True, "log_images": True,
               "score_display": True},
    "packages": {"inspect_ai": "0.3.140"},
    "scorers": [{"name": "includes", "options": {}, "metrics": [{"name": "inspect_ai/accuracy", "options": {}},
                                                               {"name": "inspect_ai/stderr", "options": {}}],
                 "metadata": {}}],
}
plan = {"name": "plan", "steps": [{"solver": "system_message", "params": {"template": "You add numbers with the tools you have."}},
                                  {"solver": "use_tools", "params": {"tools": [{"type": "tool", "name": "mcp_server_stdio"}]}},
                                  {"solver": "generate", "params": {}}], "config": {}}
results = {"total_samples": 2, "completed_samples": 2,
           "scores": [{"name": "includes", "scorer": "includes", "reducer": "mean", "scored_samples": 1,
                       "unscored_samples": 0, "params": {},
                       "metrics": {"accuracy": {"name": "accuracy", "value": 1.0, "params": {}},
                                   "stderr": {"name": "stderr", "value": 0.0, "params": {}}}}]}
stats = {"started_at": "2026-11-28T18:00:00+00:00", "completed_at": "2026-11-28T18:00:03+00:00",
         "model_usage": {MODEL: {"input_tokens": 540, "output_tokens": 50, "total_tokens": 590, "input_tokens_cache_read": 128}}}
samples = [sample(1, "UeXh3pJ7kWzQn2VbRc9tLm"), sample(2, "Hs4dGv8yNqTk1MzXwPf6Ra")]
reductions = [{"scorer": "includes", "reducer": "mean", "samples": [{"value": 1.0, "answer": "The sum is 5.", "sample_id": 1}]}]

log = {"version": 2, "status": "success", "eval": eval_spec, "plan": plan, "results": results, "stats": stats,
       "reductions": reductions, "samples": samples}
out = sys.argv[1]
with open(f"{out}/inspect_sum_log.json", "w") as f:
    f.write(json.dumps(log, indent=2) + "\n")


def dump(v):
    return json.dumps(v, indent=2)


summaries = [{"id": s["id"], "epoch": s["epoch"], "input": s["input"], "target": s["target"], "scores": s["scores"]}
             for s in samples]
header = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
with zipfile.ZipFile(f"{out}/inspect_sum.eval", "w", compression=zipfile.ZIP_DEFLATED, compresslevel=5) as z:
    z.writestr("_journal/start.json", dump({"version": 2, "eval": eval_spec, "plan": plan}))
    for s in samples:
        z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", dump(s))
    z.writestr("_journal/summaries/1.json", dump(summaries))
    z.writestr("summaries.json", dump(summaries))
    z.writestr("reductions.json", dump(reductions))
    z.writestr("header.json", dump(header))
