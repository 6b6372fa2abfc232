/**
 * The README and the pages of docs/, read as a reader sees them: each file's text and its
 * fenced code blocks. A block whose previous non-blank line is `<!-- runnable -->` is a
 * promise that it runs as written against a sandbox on 127.0.0.1:4010 (test/readme-flow.test.ts
 * runs every such block; `ts` blocks are compiled by test/package.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './cli-process.js'

export interface DocFile {
  /** Relative to the repository root, with `/`: `README.md`, `docs/webhooks.md`. */
  path: string
  text: string
}

export interface CodeBlock {
  file: string
  /** 1-based line of the opening fence. */
  line: number
  lang: string
  code: string
  runnable: boolean
}

export const RUNNABLE_MARKER = '<!-- runnable -->'

/** README.md, then every Markdown page of docs/ in name order. */
export function docFiles(): DocFile[] {
  const pages = readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`)
  return ['README.md', ...pages].map((path) => ({
    path,
    text: readFileSync(join(repoRoot, path), 'utf8'),
  }))
}

/** The fenced blocks of one file, in order (fences of three backticks, as the pages use). */
export function codeBlocks(file: DocFile): CodeBlock[] {
  const lines = file.text.split('\n')
  const blocks: CodeBlock[] = []
  let open: { line: number; lang: string; runnable: boolean; body: string[] } | undefined
  let previous = ''
  lines.forEach((text, index) => {
    if (open) {
      if (text.trimEnd() === '```') {
        blocks.push({
          file: file.path,
          line: open.line,
          lang: open.lang,
          code: `${open.body.join('\n')}\n`,
          runnable: open.runnable,
        })
        open = undefined
      } else open.body.push(text)
      return
    }
    const fence = /^```(\S*)/.exec(text)
    if (fence) {
      open = {
        line: index + 1,
        lang: fence[1] ?? '',
        runnable: previous.trim() === RUNNABLE_MARKER,
        body: [],
      }
    }
    if (text.trim() !== '') previous = text
  })
  return blocks
}

export const allCodeBlocks = (): CodeBlock[] => docFiles().flatMap(codeBlocks)
