/**
 * Lines of every function in the given TypeScript files (declarations, expressions, arrows, methods, accessors),
 * by the TypeScript compiler's parser: `tsx scripts/function-lengths.ts [max=80] [dirs...]` prints the ones over
 * `max`, longest first. The layer test (tests/domain/layers.test.ts) holds `src/` and `server/` to 80.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `${parent.expression.getText().slice(0, 40)}(…)`;
  return '(anonymous)';
}

/** Every function-like node of `file` with its line count (first to last line, both counted). */
export function functionLengths(file: string, text = fs.readFileSync(file, 'utf8')): FunctionLength[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? '')) {
  const [maxArg, ...dirs] = process.argv.slice(2);
  const max = Number(maxArg ?? 80);
  const long = (dirs.length ? dirs : ['src', 'server'])
    .flatMap(walk)
    .flatMap((f) => functionLengths(f))
    .filter((f) => f.lines > max)
    .sort((a, b) => b.lines - a.lines);
  for (const f of long) console.log(`${f.lines}\t${f.file}:${f.line}\t${f.name}`);
}
