import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * `npm run imports`: the repository's structure drawn from its own imports. It reads every file of
 * the app (src/), the platform (platform/) and what they share (shared/), tests and test support
 * left out, and prints each folder on the floor it stands on (a folder stands above everything it
 * imports), the arrows between folders, and every circle: files that import each other in a loop,
 * and folders that do. The layers' rules (which folder may import which) are the lint's; this
 * finds what a rule cannot see, a loop. It exits with 1 when there is a circle; `--check` (in
 * `npm run check`) prints only the circles.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const HALVES = ["src", "shared", "platform"];
/** Tests and what only tests use: no part of the structure. */
const TEST_ONLY = /(\.test\.tsx?$|\/testing\/|\/test-support\/|\/test-support\.ts$|\/test-helpers\.ts$)/;

export function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.d\.ts$/.test(name) && !TEST_ONLY.test(path) ? [path] : [];
  });
}

function resolve(from: string, specifier: string, files: Set<string>): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = relative(root, join(root, dirname(from), specifier.replace(/\.js$/, "")));
  return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((f) => files.has(f));
}

/** Every file and the files it imports (imports of types included: they tie the code as much). */
export function importGraph(files: string[]): Map<string, Set<string>> {
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    const targets = importedFiles.map((i) => resolve(file, i.fileName, known)).filter((t) => t !== undefined);
    graph.set(file, new Set(targets.filter((t) => t !== file)));
  }
  return graph;
}

/** Strongly connected components of more than one node (Tarjan): the circles. */
export function circles<T>(graph: Map<T, Set<T>>): T[][] {
  let next = 0;
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const stack: T[] = [];
  const onStack = new Set<T>();
  const found: T[][] = [];
  const visit = (v: T) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: T[] = [];
    let w: T;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.reverse());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The folder a file is drawn in: `src/cc`, `platform/sip`, `shared`; a file at the top of a half is a room of its own. */
export function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? parts.slice(0, 2).join("/") : file.replace(/\.tsx?$/, "");
}

/** Each node's floor: 1 for what imports nothing, else one above the highest it imports (a circle shares one floor). */
function floors(graph: Map<string, Set<string>>): Map<string, number> {
  const floor = new Map<string, number>();
  const at = (v: string, seen: Set<string>): number => {
    if (floor.has(v)) return floor.get(v)!;
    if (seen.has(v)) return 0;
    seen.add(v);
    const f = 1 + Math.max(0, ...[...(graph.get(v) ?? [])].map((w) => at(w, seen)));
    floor.set(v, f);
    return f;
  };
  for (const v of graph.keys()) at(v, new Set());
  return floor;
}

function main(quiet: boolean): number {
  const files = HALVES.flatMap((half) => sourceFiles(half));
  const graph = importGraph(files);
  const folders = new Map<string, Set<string>>();
  const arrows = new Map<string, number>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from) continue;
      folders.get(from)!.add(to);
      arrows.set(`${from} -> ${to}`, (arrows.get(`${from} -> ${to}`) ?? 0) + 1);
    }
  }
  const fileCircles = circles(graph);
  const folderCircles = circles(folders);
  if (quiet && fileCircles.length + folderCircles.length === 0) return 0;
  if (!quiet) {
    const floor = floors(folders);
    console.log(`${files.length} files, ${folders.size} folders, ${arrows.size} arrows between folders\n`);
    for (let f = Math.max(...floor.values()); f >= 1; f--) {
      const here = [...folders.keys()].filter((d) => floor.get(d) === f).sort();
      console.log(`floor ${String(f).padStart(2)}  ${here.join("  ")}`);
    }
    console.log("\narrows (imports between folders):");
    for (const [arrow, count] of [...arrows].sort()) console.log(`  ${arrow} (${count})`);
    console.log("");
  }
  console.log(`circles of files: ${fileCircles.length}`);
  for (const c of fileCircles) console.log(`  ${c.join(", ")}`);
  console.log(`circles of folders (an arrow back up): ${folderCircles.length}`);
  for (const c of folderCircles) console.log(`  ${c.join(", ")}`);
  return fileCircles.length + folderCircles.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.includes("--check"));
