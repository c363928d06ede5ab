import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Grammar, NameAddrHeader, URI } from "sip.js";

/**
 * sip.js parses every header with a PEG parser (`lib/grammar/pegjs/dist/grammar.js`) whose rule
 * table (236 rules in a compact string form) is decoded anew on each call, before a single
 * character is read: a SIP message, with a parse per header, cost the platform 2-5 ms (more on a
 * loaded machine, mostly that decoding and the garbage it leaves). A switch parses a 200 OK in microseconds; in the
 * local platform it was a third of the time between the phone's 200 OK and its answer being set.
 *
 * This module gives sip.js the same parser with its table decoded once: the published file's
 * text with the table's declaration moved out of the parse function (the table is only read
 * while parsing). Everything else, rules, actions and results, is sip.js's own, and sip.js keeps
 * calling it through `Grammar.parse`. Installed on import; a published file of another shape
 * leaves sip.js's parser in place (`fastGrammarInstalled` says which).
 */
export function hoistRuleTable(source: string): string | undefined {
  const start = source.indexOf("    const peg$bytecode = [");
  const close = "\n    ];\n";
  const end = source.indexOf(close, start);
  const parse = source.indexOf("function peg$parse(");
  if (start < 0 || end < 0 || parse < 0 || parse > start || !source.includes("function peg$decode(s)"))
    return undefined;
  const table = source.slice(start, end + close.length).replace(/^ {4}/gm, "");
  const decode = 'function peg$decode(s) {\n    return s.split("").map((ch) => ch.charCodeAt(0) - 32);\n}\n';
  return source.slice(0, parse) + decode + table + source.slice(parse, start) + source.slice(end + close.length);
}

type PegParse = (input: string, options: { startRule: string; data?: unknown }) => unknown;

/** The published parser module's text as a function of its two imports, returning its `parse`. */
function loadParser(source: string): PegParse | undefined {
  const imports = [
    'import { NameAddrHeader } from "../../name-addr-header.js";\n',
    'import { URI } from "../../uri.js";\n',
  ];
  const exported = "export const parse = peg$parse;";
  if (
    !imports.every((line) => source.includes(line)) ||
    !source.includes(exported) ||
    !source.includes("export class SyntaxError")
  )
    return undefined;
  let body = source;
  for (const line of imports) body = body.replace(line, "");
  body = body.replace("export class SyntaxError", "class SyntaxError").replace(exported, "return peg$parse;");
  return new Function("NameAddrHeader", "URI", body)(NameAddrHeader, URI) as PegParse;
}

function install(): boolean {
  const file = createRequire(import.meta.url).resolve("sip.js/lib/grammar/pegjs/dist/grammar.js");
  const hoisted = hoistRuleTable(readFileSync(file, "utf8"));
  const parse = hoisted ? loadParser(hoisted) : undefined;
  if (!parse) return false;
  // sip.js's own Grammar.parse, on the parser with its table decoded once.
  (Grammar as { parse: (input: string, startRule: string) => unknown }).parse = (input, startRule) => {
    const options: { startRule: string; data?: unknown } = { startRule };
    try {
      parse(input, options);
    } catch {
      options.data = -1;
    }
    return options.data;
  };
  return true;
}

export const fastGrammarInstalled = install();
