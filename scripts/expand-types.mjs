// Prints a TypeScript type as plain declaration text, expanded: `z.infer<typeof Health>`
// becomes `{ status: "ok"; version: string; ... }`. The published declarations use it so they
// name no bundled library (zod), while the zod schemas stay the one source of the types.
// Names: a type that is one of the public names (`names`, by identity) prints as that name.
import ts from 'typescript'

const F = ts.TypeFlags
const keywords = [
  [F.Any, 'any'],
  [F.Unknown, 'unknown'],
  [F.String, 'string'],
  [F.Number, 'number'],
  [F.Boolean, 'boolean'],
  [F.BigInt, 'bigint'],
  [F.ESSymbol, 'symbol'],
  [F.Null, 'null'],
  [F.Undefined, 'undefined'],
  [F.Void, 'void'],
  [F.Never, 'never'],
  [F.NonPrimitive, 'object'],
]

const propertyName = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name))

/** JSDoc of a symbol (the comment on the zod shape's property survives inference). */
export function docComment(checker, symbol, pad) {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()
  const tags = symbol
    .getJsDocTags(checker)
    .map((tag) => `@${tag.name}${tag.text ? ` ${ts.displayPartsToString(tag.text)}` : ''}`)
  const lines = [...(text ? text.split('\n') : []), ...tags]
  if (lines.length === 0) return ''
  if (lines.length === 1) return `${pad}/** ${lines[0]} */\n`
  return `${pad}/**\n${lines.map((line) => `${pad} * ${line}`.trimEnd()).join('\n')}\n${pad} */\n`
}

export function createExpander(program, names) {
  const checker = program.getTypeChecker()
  const used = new Set()
  const fromLibrary = (type) => {
    const declarations = (type.aliasSymbol ?? type.symbol)?.declarations ?? []
    return (
      declarations.length > 0 &&
      declarations.every((d) => {
        const file = d.getSourceFile()
        return program.isSourceFileDefaultLibrary(file) || file.fileName.includes('/@types/node/')
      })
    )
  }

  /** The members of an object type, one per line, each with its JSDoc. */
  function members(type, indent, stack) {
    const pad = '  '.repeat(indent + 1)
    const lines = []
    for (const prop of checker.getPropertiesOfType(type)) {
      const optional = prop.flags & ts.SymbolFlags.Optional ? '?' : ''
      const propType = print(checker.getTypeOfSymbol(prop), indent + 1, stack)
      lines.push(
        `${docComment(checker, prop, pad)}${pad}${propertyName(prop.name)}${optional}: ${propType};`,
      )
    }
    for (const info of checker.getIndexInfosOfType(type)) {
      const key = print(info.keyType, indent + 1, stack)
      lines.push(`${pad}[key: ${key}]: ${print(info.type, indent + 1, stack)};`)
    }
    return lines
  }

  function object(type, indent, stack) {
    const props = checker.getPropertiesOfType(type)
    const infos = checker.getIndexInfosOfType(type)
    if (props.length === 0 && infos.length === 1 && infos[0].keyType.flags & F.String)
      return `Record<string, ${print(infos[0].type, indent, stack)}>`
    const lines = members(type, indent, stack)
    return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${'  '.repeat(indent)}}`
  }

  function signature(sig, indent, stack) {
    const params = sig.parameters.map((param) => {
      const decl = param.valueDeclaration
      const optional = decl && ts.isParameter(decl) && checker.isOptionalParameter(decl) ? '?' : ''
      return `${param.name}${optional}: ${print(checker.getTypeOfSymbol(param), indent, stack)}`
    })
    return `(${params.join(', ')}) => ${print(checker.getReturnTypeOfSignature(sig), indent, stack)}`
  }

  const isFunction = (type) =>
    type.flags & F.Object &&
    checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0 &&
    checker.getPropertiesOfType(type).length === 0
  /** A function type needs parentheses in a union or an array; a union, in an array. */
  function wrap(type, indent, stack, inArray = false) {
    const text = print(type, indent, stack)
    if (names.has(type)) return text
    const union = type.flags & F.Union && !(type.flags & F.Boolean)
    return isFunction(type) || (inArray && union) ? `(${text})` : text
  }
  /** Members in order, but null and undefined last: `string | null | undefined`. */
  const nullishLast = (types) => [
    ...types.filter((t) => !(t.flags & (F.Null | F.Undefined))),
    ...types.filter((t) => t.flags & F.Null),
    ...types.filter((t) => t.flags & F.Undefined),
  ]

  function print(type, indent = 0, stack = new Set(), top = false) {
    const name = names.get(type)
    if (name && !top) {
      used.add(name)
      return name
    }
    for (const [flag, word] of keywords) if (type.flags === flag) return word
    if (type.flags & F.BooleanLiteral) return checker.typeToString(type)
    if (type.flags & (F.StringLiteral | F.NumberLiteral)) return JSON.stringify(type.value)
    if (type.flags & F.TemplateLiteral) return checker.typeToString(type)
    if (stack.has(type)) throw new Error(`recursive type ${checker.typeToString(type)}: name it`)
    const inner = new Set(stack).add(type)
    if (type.flags & F.Union) {
      const bools = type.types.filter((t) => t.flags & F.BooleanLiteral)
      const text = nullishLast(type.types).map((t) =>
        t.flags & F.BooleanLiteral ? checker.typeToString(t) : wrap(t, indent, inner),
      )
      // `true | false` is how TypeScript holds boolean: print it as written.
      if (bools.length === 2) {
        const literal = (t) => t === 'true' || t === 'false'
        const at = text.findIndex(literal)
        const kept = text.filter((t, i) => i === at || !literal(t))
        return kept.map((t, i) => (i === at ? 'boolean' : t)).join(' | ')
      }
      return text.join(' | ')
    }
    if (type.flags & F.Intersection) {
      if (type.types.every((t) => t.flags & F.Object)) return object(type, indent, inner)
      return type.types.map((t) => `(${print(t, indent, inner)})`).join(' & ')
    }
    if (!(type.flags & F.Object)) throw new Error(`cannot expand ${checker.typeToString(type)}`)
    if (checker.isArrayType(type)) {
      const element = wrap(checker.getTypeArguments(type)[0], indent, inner, true)
      return type.symbol?.name === 'ReadonlyArray' ? `readonly ${element}[]` : `${element}[]`
    }
    if (checker.isTupleType(type)) {
      if (type.target.elementFlags.some((flag) => flag !== ts.ElementFlags.Required))
        throw new Error(`cannot expand tuple ${checker.typeToString(type)}`)
      return `[${checker
        .getTypeArguments(type)
        .map((t) => print(t, indent, inner))
        .join(', ')}]`
    }
    if (fromLibrary(type)) return checker.typeToString(type)
    const calls = checker.getSignaturesOfType(type, ts.SignatureKind.Call)
    if (calls.length === 1 && checker.getPropertiesOfType(type).length === 0)
      return signature(calls[0], indent, inner)
    if (calls.length > 0) throw new Error(`cannot expand callable ${checker.typeToString(type)}`)
    return object(type, indent, inner)
  }

  return { checker, print, members, used }
}
