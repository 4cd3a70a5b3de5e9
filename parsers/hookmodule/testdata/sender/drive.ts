// Drives the probe extension (ext.ts, written by module_test.go) through a
// fake agent API, as pi or omp would call it; the fake logwatch appends
// each hook it gets to $OUT. Phases are printed as they end.
import ext from "./ext.ts";
import { readFileSync, existsSync } from "node:fs";

const out = process.env.OUT as string;
const handlers = new Map<string, (e: any, ctx: any) => unknown>();
ext({
	on(name: string, h: (e: any, ctx: any) => unknown) {
		if (name === "missing") throw new Error("no such event");
		handlers.set(name, h);
	},
});
const ctx = { cwd: "/w", sessionManager: { getSessionId: () => "s1", getSessionFile: () => "/s1.jsonl" } };
const fire = (name: string, e: any = {}) => handlers.get(name)!(e, ctx);
const lines = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").filter((l) => l).length : 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(n: number) {
	for (let i = 0; i < 600 && lines() < n; i++) await sleep(50);
}

// 1: order. The fake logwatch takes a second over SessionStart.
fire("start");
fire("prompt");
fire("tool", { command: "x".repeat(5000), other: "dropped" });
if (fire("boom") !== undefined) throw new Error("a throwing handler returned something");
fire("end");
await fire("quit");
await until(5);
console.log("phase1", lines());

// Each burst below starts behind a slow session start, once the phase
// before it is gone (its last hook process may still be leaving).
await sleep(500);

// 2: the bound. 100 tool events behind a slow one: the latest 64 wait.
fire("start");
for (let i = 0; i < 100; i++) fire("tool", { command: `c${i}` });
await until(5 + 65);
await sleep(2000); // anything past the bound would arrive now
console.log("phase2", lines());

// 3 and 4: one turn's burst at once, the session's end queued behind it:
// 82 events (a pi turn measured), then 5000.
let seen = lines();
for (const n of [82, 5000]) {
	fire("start");
	fire("prompt");
	for (let i = 0; i < (n - 4) / 2; i++) {
		fire("tool", { command: `t${i}` });
		fire("toolend", { command: `t${i}` });
	}
	fire("end");
	fire("gone");
	await until(seen + 65);
	await sleep(2000);
	seen = lines();
	console.log("burst", n, seen);
}

// 5: nothing to coalesce: 100 prompts and a turn end behind a slow start
// keep the newest, the turn end last.
fire("start");
for (let i = 0; i < 100; i++) fire("prompt");
fire("end");
await until(seen + 65);
await sleep(2000);
console.log("phase5", lines());
