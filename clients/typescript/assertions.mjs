// Counts what overrules the type checker in TypeScript sources:
//   node assertions.mjs FILE.ts ...
// prints {"as": n, "angle": n, "non_null": n, "any": n, "predicate": n, "ts_directives": n,
// "where": [...]}: `x as T` (`as const` included), `<T>x`, `x!`, the `any` type, a
// function's own `x is T` (the checker takes its word for it), and `@ts-ignore`,
// `@ts-expect-error`, `@ts-nocheck` comments. A program typed only by its generated types
// needs none of them.
import ts from "typescript";
import { readFileSync } from "node:fs";

const counts = { as: 0, angle: 0, non_null: 0, any: 0, predicate: 0, ts_directives: 0, where: [] };

function found(kind, file, source, node) {
  counts[kind] += 1;
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  counts.where.push(`${file}:${line + 1}: ${kind}: ${node.getText(source).slice(0, 60)}`);
}

for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (node) => {
    if (ts.isAsExpression(node)) found("as", file, source, node);
    else if (ts.isTypeAssertionExpression(node)) found("angle", file, source, node);
    else if (ts.isNonNullExpression(node)) found("non_null", file, source, node);
    else if (node.kind === ts.SyntaxKind.AnyKeyword) found("any", file, source, node);
    else if (ts.isTypePredicateNode(node)) found("predicate", file, source, node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const match of text.matchAll(/@ts-(ignore|expect-error|nocheck)/g)) {
    counts.ts_directives += 1;
    const line = text.slice(0, match.index).split("\n").length;
    counts.where.push(`${file}:${line}: ts_directives: ${match[0]}`);
  }
}
console.log(JSON.stringify(counts));
