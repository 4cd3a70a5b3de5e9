// Drives an extension (ext.ts, written by moduletest.Extension) as pi or omp would:
// its factory with an API whose `on` keeps the handlers, then each step of
// steps.json (an event name, its payload, and whether the run's signal is
// aborted, as pi's context tells, and how long to wait before it), awaiting
// each handler. The fake logwatch
// appends each hook it gets to $OUT; the drive waits for $WANT of them,
// then a moment for any extra.
import ext from "./ext.ts";
import { readFileSync, existsSync } from "node:fs";

const out = process.env.OUT as string;
const want = Number(process.env.WANT);
const steps = JSON.parse(readFileSync("steps.json", "utf8"));
const handlers = new Map<string, (e: any, ctx: any) => unknown>();
ext({ on: (name: string, h: (e: any, ctx: any) => unknown) => void handlers.set(name, h) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (const s of steps) {
	if (s.wait) await sleep(s.wait);
	const ctx = {
		cwd: "/w",
		sessionManager: { getSessionId: () => "s1", getSessionFile: () => "/s1.jsonl" },
		signal: { aborted: s.aborted === true },
	};
	await handlers.get(s.name)?.(s.event ?? {}, ctx);
}
const lines = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").filter((l) => l).length : 0);
for (let i = 0; i < 400 && lines() < want; i++) await sleep(25);
await sleep(300);
