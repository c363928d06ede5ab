import { createServer, type Server } from "node:net";

/**
 * The ports `npm start` listens on by default: the app and the platform (8080) and the demo CRM
 * (8081).
 */
export const DEFAULT_PORTS = [8080, 8081];

/**
 * Global set-up of the integration and end-to-end runs: they hold `npm start`'s default ports, as
 * a developer's `npm start` beside them would, so a test that opens one of them instead of a free
 * port fails here too (EADDRINUSE), not only on a machine where `npm start` runs. A port that is
 * already held (by `npm start` itself) is left as it is. Returns the teardown that frees them.
 */
export default async function holdDefaultPorts(): Promise<() => Promise<void>> {
  const held = (await Promise.all(DEFAULT_PORTS.map(hold))).filter((s): s is Server => s !== undefined);
  return async () => {
    await Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  };
}

function hold(port: number): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" ? resolve(undefined) : reject(error),
    );
    // Every address of the machine: a platform on 127.0.0.1 or on 0.0.0.0 cannot take the port.
    server.listen({ port, host: "0.0.0.0", exclusive: true }, () => resolve(server));
  });
}
