// The modules a bundle of this app reaches from its entry, read from the source with TypeScript's
// parser and resolver, for tests of which code may end up in which bundle.
//
// Written here rather than taken from a dependency-graph tool (dependency-cruiser, madge): those
// follow every import in a file, and the question here is the bundler's: webpack leaves out the
// branch of an `if` whose condition it folds to a constant (`process.env.NEXT_RUNTIME === 'nodejs'`
// is `false` in an edge bundle), and nothing else. So this folds that one condition, per target,
// and follows everything else: static imports and re-exports, `import()` and `require()`.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** What `process.env.NEXT_RUNTIME` is in the bundle: undefined in browser bundles. */
export type Runtime = 'nodejs' | 'edge' | undefined;

export interface Reached {
  /** Files of the app the entry reaches, relative to the root, each with how it was reached. */
  files: Map<string, string[]>;
  /** Bare module names the app's files ask for (packages, `node:` modules), with who asked first. */
  modules: Map<string, string[]>;
}

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowJs: true,
  jsx: ts.JsxEmit.ReactJSX,
  resolveJsonModule: true,
};

function isNextRuntime(node: ts.Expression): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'NEXT_RUNTIME' &&
    ts.isPropertyAccessExpression(node.expression) &&
    node.expression.name.text === 'env' &&
    ts.isIdentifier(node.expression.expression) &&
    node.expression.expression.text === 'process'
  );
}

/** The condition's value in a bundle for `runtime`, when the bundler can fold it; else undefined. */
function folded(condition: ts.Expression, runtime: Runtime): boolean | undefined {
  if (ts.isParenthesizedExpression(condition)) return folded(condition.expression, runtime);
  if (ts.isPrefixUnaryExpression(condition) && condition.operator === ts.SyntaxKind.ExclamationToken) {
    const inner = folded(condition.operand, runtime);
    return inner === undefined ? undefined : !inner;
  }
  if (!ts.isBinaryExpression(condition)) return undefined;
  const operator = condition.operatorToken.kind;
  const equal =
    operator === ts.SyntaxKind.EqualsEqualsEqualsToken || operator === ts.SyntaxKind.EqualsEqualsToken;
  const unequal =
    operator === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
    operator === ts.SyntaxKind.ExclamationEqualsToken;
  if (!equal && !unequal) return undefined;
  const [variable, literal] = isNextRuntime(condition.left)
    ? [condition.left, condition.right]
    : [condition.right, condition.left];
  if (!isNextRuntime(variable) || !ts.isStringLiteral(literal)) return undefined;
  return (runtime === literal.text) === equal;
}

/** Whether an import brings in nothing at run time (TypeScript erases it). */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false; // `import './x'`: runs for its effects
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    !clause.name &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** The module names a file asks for at run time in a bundle for `runtime`. */
function specifiersOf(file: string, runtime: Runtime): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIfStatement(node)) {
      const value = folded(node.expression, runtime);
      if (value === true) return visit(node.thenStatement);
      if (value === false) return node.elseStatement ? visit(node.elseStatement) : undefined;
    }
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (!typeOnly(node) && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
      return;
    }
    if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if ((isImport || isRequire) && first && ts.isStringLiteralLike(first)) found.push(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Every module a bundle for `runtime` reaches from `entries` (paths relative to `root`). A file
 * `leaveOut` names (relative to the root) is not entered: neither it nor what only it imports is reached.
 */
export function reachedFrom(
  root: string,
  entries: string[],
  runtime: Runtime,
  leaveOut: (file: string) => boolean = () => false,
): Reached {
  const files = new Map<string, string[]>();
  const modules = new Map<string, string[]>();
  const queue: [string, string[]][] = entries.map((entry) => [path.join(root, entry), []]);
  while (queue.length > 0) {
    const [file, via] = queue.shift()!;
    const name = path.relative(root, file);
    if (files.has(name) || leaveOut(name)) continue;
    const chain = [...via, name];
    files.set(name, chain);
    if (!/\.[cm]?[jt]sx?$/.test(file)) continue; // styles and data
    for (const specifier of specifiersOf(file, runtime)) {
      const resolved = ts.resolveModuleName(specifier, file, OPTIONS, ts.sys).resolvedModule;
      const target = resolved?.resolvedFileName;
      const isApp =
        target && !resolved.isExternalLibraryImport && !target.includes(`${path.sep}node_modules${path.sep}`);
      if (isApp) queue.push([target, chain]);
      else if (!specifier.startsWith('.')) {
        if (!modules.has(specifier)) modules.set(specifier, [...chain, specifier]);
      } else if (existsSync(path.resolve(path.dirname(file), specifier))) {
        queue.push([path.resolve(path.dirname(file), specifier), chain]); // a stylesheet
      }
    }
  }
  return { files, modules };
}
