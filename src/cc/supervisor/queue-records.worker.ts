/// <reference lib="webworker" />
import { answerPage, type PageRequest, type WorkerReply } from "./queue-records";

/** The worker that reads a queue's pages of call records (see queue-records.ts). */
const scope = self as unknown as DedicatedWorkerGlobalScope;
const reply = (message: WorkerReply) => scope.postMessage(message);
scope.addEventListener("message", (e: MessageEvent<PageRequest>) => reply(answerPage(e.data)));
reply({ ready: true });
