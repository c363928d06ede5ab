import { parseAst } from "vite";

/**
 * The rules of sip.js's SIP grammar the phone's build parses from: the start line, the headers
 * sip.js's message parser and its INVITE, REGISTER, REFER and NOTIFY paths read (Via, From, To,
 * Call-ID, CSeq, Contact, Record-Route, Max-Forwards, Content-Length, Content-Type,
 * Content-Disposition, the two digest challenges, Event, Refer-To, Replaces), a name-addr, a SIP
 * URI, the transport's WebSocket address and the instance id. Left out: Supported, Require,
 * Session-Expires, Min-SE, Referred-By, Subscription-State (read only by sip.js's subscriber and
 * SUBSCRIBE client, which the build leaves out), STUN and TURN URIs and a sipfrag (the phone
 * parses a transfer's sipfrag itself, src/softphone/sipfrag.ts).
 */
export const PHONE_GRAMMAR_RULES = [
  "Request_Response",
  "Via",
  "From",
  "To",
  "Call_ID",
  "CSeq",
  "Contact",
  "Record_Route",
  "Max_Forwards",
  "Content_Length",
  "Content_Type",
  "Content_Disposition",
  "WWW_Authenticate",
  "Proxy_Authenticate",
  "Event",
  "Refer_To",
  "Replaces",
  "Name_Addr_Header",
  "SIP_URI",
  "absoluteURI",
  "uuid",
] as const;

interface AstNode {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}
const isNode = (v: unknown): v is AstNode =>
  typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string";

/** Number of operands after each opcode of peggy's bytecode (CALL, 26, has a variable count). */
const OPERANDS: Record<number, number> = {
  0: 1,
  8: 1,
  11: 1,
  13: 2,
  14: 2,
  15: 2,
  16: 1,
  17: 2,
  18: 3,
  19: 3,
  20: 3,
  21: 1,
  22: 1,
  23: 1,
  24: 1,
  27: 1,
};
/** Opcodes whose first operand is an index in the constants table (PUSH, MATCH_*, ACCEPT_STRING, FAIL, CALL). */
const READS_CONSTANT = new Set([0, 18, 19, 20, 22, 23, 26]);
const RULE = 27;

/** The rules and constants one rule's bytecode names. */
function namedBy(bytecode: number[]): { rules: number[]; constants: number[] } {
  const rules: number[] = [];
  const constants: number[] = [];
  for (let ip = 0; ip < bytecode.length;) {
    const op = bytecode[ip]!;
    if (op < 0 || op > 29) throw new Error(`sip.js's grammar: unknown opcode ${op}`);
    if (op === RULE) rules.push(bytecode[ip + 1]!);
    if (READS_CONSTANT.has(op)) constants.push(bytecode[ip + 1]!);
    ip += op === 26 ? 4 + bytecode[ip + 3]! : 1 + (OPERANDS[op] ?? 0);
  }
  return { rules, constants };
}

/** A constant that only describes what a failed match expected, for the error's message. */
const isExpectation = (e: AstNode): boolean =>
  e.type === "CallExpression" &&
  /^peg\$(literal|class|any|other)Expectation$/.test(((e.callee as AstNode).name as string) ?? "");

/**
 * sip.js's compiled grammar (`lib/grammar/pegjs/dist/grammar.js`, peggy's "size" output: one
 * bytecode string per rule, run by an interpreter, and one table of constants: literals, character
 * classes, expectations, actions) with only what the given start rules can reach: the bytecode of
 * every other rule and every constant no kept rule names become `0`, and the other start rules
 * are no longer offered (parsing from one throws, as for any unknown rule). Indices do not move,
 * so a kept rule runs exactly the bytecode and constants it ran before. What refused input is
 * said to have lacked goes too (the expectation constants and the message built from them):
 * sip.js's `Grammar.parse`, the parser's only caller, answers -1 for any refusal and reads
 * nothing of the error, which is still thrown where it was, with its position. The kept rules'
 * bytecode is decoded once, as the module loads, instead of at each parse.
 */
export function trimSipGrammar(code: string, keep: readonly string[]): string {
  const found: Record<string, AstNode> = {};
  let buildMessage: AstNode | undefined;
  let parseFunction: AstNode | undefined;
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!isNode(n)) return;
    const id = n.id as AstNode | undefined;
    if (n.type === "VariableDeclarator" && id?.type === "Identifier" && isNode(n.init))
      found[id.name as string] = n.init;
    if (n.type === "FunctionDeclaration" && id?.name === "peg$parse") parseFunction = n;
    if (n.type === "MethodDefinition" && n.static === true && (n.key as AstNode).name === "buildMessage")
      buildMessage = n;
    for (const [k, v] of Object.entries(n)) if (k !== "type" && typeof v === "object") visit(v);
  };
  visit(parseAst(code));
  const { peg$consts: constants, peg$bytecode: bytecodes, peg$startRuleIndices: starts } = found;
  if (
    constants?.type !== "ArrayExpression" ||
    bytecodes?.type !== "ArrayExpression" ||
    starts?.type !== "ObjectExpression"
  ) {
    throw new Error("sip.js's grammar is not laid out as expected (peg$consts, peg$bytecode, peg$startRuleIndices)");
  }
  const decoded = (bytecodes.elements as AstNode[]).map((e) => {
    const arg = (e.arguments as AstNode[] | undefined)?.[0];
    if (e.type !== "CallExpression" || typeof arg?.value !== "string")
      throw new Error("sip.js's grammar: a rule's bytecode is not a peg$decode string");
    return [...arg.value].map((ch) => ch.charCodeAt(0) - 32);
  });
  const startIndex = new Map(
    (starts.properties as AstNode[]).map((p) => [
      (p.key as AstNode).name as string,
      (p.value as AstNode).value as number,
    ]),
  );
  const rules = new Set<number>();
  const used = new Set<number>();
  const reach = (rule: number): void => {
    if (rules.has(rule)) return;
    rules.add(rule);
    const named = namedBy(decoded[rule]!);
    named.constants.forEach((c) => used.add(c));
    named.rules.forEach(reach);
  };
  for (const name of keep) {
    const index = startIndex.get(name);
    if (index === undefined) throw new Error(`sip.js's grammar has no start rule ${name}`);
    reach(index);
  }
  const edits: [number, number, string][] = [];
  (constants.elements as AstNode[]).forEach(
    (e, i) => (!used.has(i) || isExpectation(e)) && edits.push([e.start, e.end, "0"]),
  );
  if (!buildMessage) throw new Error("sip.js's grammar has no SyntaxError.buildMessage");
  edits.push([buildMessage.start, buildMessage.end, 'static buildMessage() { return ""; }']);
  // The rules' bytecode is decoded once, when the module loads, rather than on every parse (sip.js
  // declares the table inside the parse function: every header parsed decoded all of it again).
  if (!parseFunction) throw new Error("sip.js's grammar has no peg$parse function");
  const table = (bytecodes.elements as AstNode[])
    .map((e, i) => (rules.has(i) ? code.slice(e.start, e.end) : "0"))
    .join(",\n");
  edits.push([
    parseFunction.start,
    parseFunction.start,
    `const peg$rules = ((peg$decode) => [\n${table}\n])((s) => s.split("").map((ch) => ch.charCodeAt(0) - 32));\n`,
  ]);
  edits.push([bytecodes.start, bytecodes.end, "peg$rules"]);
  const kept = (starts.properties as AstNode[]).filter((p) => keep.includes((p.key as AstNode).name as string));
  edits.push([starts.start, starts.end, `{ ${kept.map((p) => code.slice(p.start, p.end)).join(", ")} }`]);
  let out = code;
  for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
  return out;
}
