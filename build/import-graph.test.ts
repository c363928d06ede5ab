import { describe, expect, it } from "vitest";
import { circles, folderOf } from "./import-graph";

const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));

describe("the import graph", () => {
  it("finds each loop of imports once, and nothing in a graph without one", () => {
    expect(circles(graph({ a: ["b"], b: ["c"], c: [] }))).toEqual([]);
    const found = circles(graph({ a: ["b"], b: ["c"], c: ["a"], d: ["a", "e"], e: ["d"], f: [] }));
    expect(found.map((c) => [...c].sort())).toEqual(
      [
        ["a", "b", "c"],
        ["d", "e"],
      ].map((c) => c.sort()),
    );
  });

  it("draws a file in the folder under its half, a file at a half's top as a room of its own", () => {
    expect(folderOf("src/ui/phone/call-card.tsx")).toBe("src/ui");
    expect(folderOf("platform/sip/hub.ts")).toBe("platform/sip");
    expect(folderOf("platform/clock.ts")).toBe("platform/clock");
    expect(folderOf("src/main.tsx")).toBe("src/main");
  });
});
