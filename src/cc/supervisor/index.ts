// The supervisor: the wallboard of agents and queues, and what a supervisor does to their calls.
// Apart from the call-center core's index (../index.ts), so that an agent's page never loads it.
export * from "./wallboard";
export * from "./wallboard-store";
export * from "./queue-day";
export * from "./agent-day";
export * from "./alerts";
export * from "./day-export";
export * from "./supervisor-role";
export * from "./supervision";
