// Every declaration of a TypeScript declaration file, with every field path and every string
// literal value, as JSON rows for `scripts/upstream-diff extract`.
//
//     node extract-dts.js sdk.d.ts > rows.json
//
// Needs the `typescript` package (5.x) where Node finds it (`scripts/upstream-diff` installs it
// next to the unpacked SDK). Each row is {key, optional, type, literals}: a declaration or a
// field, with the string literals its type names directly ('a' | 'b', a tuple such as
// HOOK_EVENTS); scripts/upstream/fields.py merges the rows of one key and writes a row per value.
//
// Keys:
//   Name                          a declaration (type, interface, function, const, class, enum)
//   Name.field.sub                a field of an object literal, nested at any depth; the members
//                                 of a union or an intersection of object literals share one
//                                 path (their fields are merged; their types are joined)
//   Name.list[].field             the elements of an array (T[], Array<T>, readonly tuples)
//   Name.map{*}.field             the values of a Record<K, V>, of an index signature, of a
//                                 mapped type
//   Name.f(param).field           a parameter of a function type, method or function
//   Name.f()=>.field              the result of a function type or method
//   Name.method()                 a method (its type is its signature)
// Object literals inside a type's text are written `{...}`: their fields are rows of their own.
'use strict';
const ts = require('typescript');
const fs = require('fs');

const file = process.argv[2];
const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
const rows = [];

// The text of a node without comments, on one line, with object literals written `{...}`.
function text(node) {
  const start = node.getStart(src);
  const cuts = [];
  (function find(n) {
    if (ts.isTypeLiteralNode(n)) {
      cuts.push([n.getStart(src), n.getEnd()]);
      return;
    }
    ts.forEachChild(n, find);
  })(node);
  let out = '';
  let at = start;
  for (const [from, to] of cuts) {
    out += src.text.slice(at, from) + '{...}';
    at = to;
  }
  out += src.text.slice(at, node.getEnd());
  return out.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '').replace(/\s+/g, ' ')
    .replace(/;\s*$/, '').trim();
}

function isExported(node) {
  return !!(node.modifiers && node.modifiers.some(m => m.kind === ts.SyntaxKind.ExportKeyword));
}

function propName(name) {
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return name.getText(src);
}

// The string literals a type names directly: 'a' | 'b', ('a' | 'b')[], readonly ['a', 'b'].
function literals(node) {
  const out = [];
  (function rec(n) {
    if (!n) return;
    if (ts.isParenthesizedTypeNode(n)) return rec(n.type);
    if (ts.isUnionTypeNode(n)) return n.types.forEach(rec);
    if (ts.isTypeOperatorNode(n)) return rec(n.type);
    if (ts.isTupleTypeNode(n)) return n.elements.forEach(rec);
    if (ts.isArrayTypeNode(n)) return rec(n.elementType);
    if (ts.isLiteralTypeNode(n) && ts.isStringLiteral(n.literal)) out.push(n.literal.text);
  })(node);
  return out;
}

function push(key, optional, type, node) {
  rows.push({ key, optional: !!optional, type, literals: node ? literals(node) : [] });
}

function field(key, optional, typeNode) {
  push(key, optional, typeNode ? text(typeNode) : 'any', typeNode);
  if (typeNode) walkType(typeNode, key);
}

// The fields a type node holds, under `path`.
function walkType(node, path) {
  if (!node) return;
  if (ts.isParenthesizedTypeNode(node) || ts.isTypeOperatorNode(node)) return walkType(node.type, path);
  if (ts.isTypeLiteralNode(node)) {
    for (const member of node.members) walkMember(member, path);
    return;
  }
  if (ts.isUnionTypeNode(node) || ts.isIntersectionTypeNode(node)) {
    node.types.forEach(t => walkType(t, path));
    return;
  }
  if (ts.isArrayTypeNode(node)) return walkType(node.elementType, path + '[]');
  if (ts.isTupleTypeNode(node)) {
    node.elements.forEach(t => walkType(ts.isNamedTupleMember(t) ? t.type : t, path + '[]'));
    return;
  }
  if (ts.isTypeReferenceNode(node) && node.typeArguments) {
    const name = node.typeName.getText(src);
    node.typeArguments.forEach((arg, i) => {
      if (name === 'Record' && i === 0) return;
      const sub = name === 'Array' || name === 'ReadonlyArray' ? path + '[]'
        : name === 'Record' ? path + '{*}' : path;
      walkType(arg, sub);
    });
    return;
  }
  if (ts.isMappedTypeNode(node)) return walkType(node.type, path + '{*}');
  if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) return walkSignature(node, path);
}

function walkSignature(node, path) {
  for (const param of node.parameters) {
    const name = param.name.getText(src).replace(/\s+/g, ' ');
    field(`${path}(${name})`, param.questionToken || param.initializer, param.type);
  }
  if (node.type) walkType(node.type, path + '()=>');
}

function walkMember(member, path) {
  const pre = path ? path + '.' : '';
  if (ts.isPropertySignature(member) || ts.isPropertyDeclaration(member)) {
    const key = pre + propName(member.name);
    const modifiers = (member.modifiers || []).map(m => m.getText(src)).filter(m => m !== 'readonly');
    if (modifiers.length && !member.type) {
      push(key, member.questionToken, modifiers.join(' '));
      return;
    }
    field(key, member.questionToken, member.type);
  } else if (ts.isMethodSignature(member) || ts.isMethodDeclaration(member)) {
    const key = pre + propName(member.name);
    push(key + '()', member.questionToken, text(member));
    walkSignature(member, key);
  } else if (ts.isIndexSignatureDeclaration(member)) {
    field(pre.replace(/\.$/, '') + '{*}', false, member.type);
  } else if (ts.isCallSignatureDeclaration(member)) {
    push(pre + '()', false, text(member));
    walkSignature(member, pre.replace(/\.$/, ''));
  } else if (ts.isConstructorDeclaration(member) || ts.isConstructSignatureDeclaration(member)) {
    push(pre + 'constructor()', false, text(member));
    walkSignature(member, pre + 'constructor');
  } else if (ts.isGetAccessor(member) || ts.isSetAccessor(member)) {
    push(pre + propName(member.name), false, text(member));
  } else {
    push(pre + '?', false, text(member));
  }
}

function visit(statements, namespace) {
  for (const s of statements) {
    const prefix = namespace ? namespace + '.' : '';
    const exported = isExported(s) || !!namespace;
    const keyword = exported ? 'export ' : '';
    if (ts.isTypeAliasDeclaration(s)) {
      const name = prefix + s.name.text;
      push(name, false, `${keyword}type = ${text(s.type)}`, s.type);
      walkType(s.type, name);
    } else if (ts.isInterfaceDeclaration(s)) {
      const name = prefix + s.name.text;
      const heritage = (s.heritageClauses || []).map(h => ' ' + text(h)).join('');
      push(name, false, `${keyword}interface${heritage}`);
      for (const member of s.members) walkMember(member, name);
    } else if (ts.isFunctionDeclaration(s) && s.name) {
      const name = prefix + s.name.text;
      const params = s.parameters.map(p => text(p)).join(', ');
      push(name, false, `${keyword}function(${params})${s.type ? ': ' + text(s.type) : ''}`);
      walkSignature(s, name);
    } else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) {
        const name = prefix + d.name.getText(src);
        push(name, false, `${keyword}const: ${d.type ? text(d.type) : 'any'}`, d.type);
        walkType(d.type, name);
      }
    } else if (ts.isClassDeclaration(s) && s.name) {
      const name = prefix + s.name.text;
      const heritage = (s.heritageClauses || []).map(h => ' ' + text(h)).join('');
      push(name, false, `${keyword}class${heritage}`);
      for (const member of s.members) walkMember(member, name);
    } else if (ts.isEnumDeclaration(s)) {
      const name = prefix + s.name.text;
      push(name, false, `${keyword}enum`);
      for (const m of s.members) push(`${name}.${propName(m.name)}`, false, m.initializer ? text(m.initializer) : 'member');
    } else if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) {
      visit(s.body.statements, prefix + s.name.text);
    }
  }
}

visit(src.statements, '');
process.stdout.write(JSON.stringify(rows));
