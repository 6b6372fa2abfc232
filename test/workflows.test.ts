/**
 * The repository's GitHub workflows: valid against GitHub's own workflow schema (the parser of
 * GitHub's Actions language services, @actions/workflow-parser, offline), and doing what the
 * README and docs/containers.md say: CI runs .ci/run; a version tag publishes the npm package
 * with provenance and the image for linux/amd64 and linux/arm64 to ghcr.io.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { repoRoot } from './cli-process.js'

interface Step {
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Job {
  uses?: string
  needs?: string | string[]
  permissions?: Record<string, string>
  steps?: Step[]
}
interface Workflow {
  on: Record<string, unknown>
  permissions?: Record<string, string>
  jobs: Record<string, Job>
}

const text = (name: string) => readFileSync(join(repoRoot, '.github', 'workflows', name), 'utf8')

/** The schema's complaints about a workflow, one string each (none when it is valid). */
function schemaErrors(name: string, content: string): string[] {
  const result = parseWorkflow({ name, content }, new NoOperationTraceWriter())
  return result.context.errors.getErrors().map((error) => error.message)
}

const workflow = (name: string) => parse(text(name)) as Workflow
const steps = (job: Job | undefined) => job?.steps ?? []
const actionOf = (step: Step) => step.uses?.split('@')[0]

describe('the workflow schema check', () => {
  it('is not vacuous: a misspelt key, a bad permission and a missing runner are refused', () => {
    const broken = [
      'on: push',
      'permissions:',
      '  id-token: writ',
      'jobs:',
      '  build:',
      '    step:',
      '      - run: echo',
    ].join('\n')
    const errors = schemaErrors('broken.yml', broken)
    expect(errors.length).toBeGreaterThanOrEqual(2)
    expect(errors.join('\n')).toMatch(/writ/)
    expect(errors.join('\n')).toMatch(/step|runs-on/)
  })

  it.each(['ci.yml', 'release.yml'])('%s is valid', (name) => {
    expect(schemaErrors(name, text(name))).toEqual([])
  })
})

describe('.github/workflows/ci.yml', () => {
  const ci = workflow('ci.yml')

  it('runs .ci/run on every push to main and every pull request, and when a release calls it', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push', 'workflow_call'])
    const runs = Object.values(ci.jobs).flatMap((job) => steps(job).map((step) => step.run ?? ''))
    expect(runs.some((run) => /(^|\s)(bash )?\.ci\/run\s*$/.test(run))).toBe(true)
    expect(ci.permissions).toEqual({ contents: 'read' })
  })
})

describe('.github/workflows/release.yml', () => {
  const release = workflow('release.yml')
  const jobs = Object.values(release.jobs)
  const jobWith = (action: string) =>
    jobs.find((job) => steps(job).some((step) => actionOf(step) === action))

  it('runs on a version tag, after CI passes', () => {
    expect(release.on).toEqual({ push: { tags: ['v*'] } })
    const ci = Object.entries(release.jobs).find(([, job]) => job.uses?.endsWith('ci.yml'))
    expect(ci).toBeDefined()
    const publishing = jobs.filter((job) => job.steps)
    expect(publishing.length).toBe(2)
    for (const job of publishing) expect([job.needs].flat()).toContain(ci?.[0])
  })

  it('publishes the npm package with provenance, from a job that may mint an OIDC token', () => {
    const npm = jobs.find((job) => steps(job).some((step) => /npm publish/.test(step.run ?? '')))
    const publish = steps(npm).find((step) => /npm publish/.test(step.run ?? ''))
    expect(publish?.run).toMatch(/--provenance/)
    expect(publish?.env?.NODE_AUTH_TOKEN).toMatch(/secrets\./)
    expect(npm?.permissions?.['id-token']).toBe('write')
    const setup = steps(npm).find((step) => actionOf(step) === 'actions/setup-node')
    expect(setup?.with?.['registry-url']).toBe('https://registry.npmjs.org')
  })

  it('pushes a multi-arch image (linux/amd64, linux/arm64) to ghcr.io', () => {
    const image = jobWith('docker/build-push-action')
    const actions = steps(image).map(actionOf)
    // QEMU emulates arm64 on the amd64 runner; buildx builds both platforms in one manifest.
    expect(actions).toContain('docker/setup-qemu-action')
    expect(actions.indexOf('docker/setup-buildx-action')).toBeGreaterThan(
      actions.indexOf('docker/setup-qemu-action'),
    )
    const build = steps(image).find((step) => actionOf(step) === 'docker/build-push-action')
    const platforms = String(build?.with?.platforms)
      .split(',')
      .map((p) => p.trim())
    expect(platforms.sort()).toEqual(['linux/amd64', 'linux/arm64'])
    expect(build?.with?.push).toBe(true)
    const login = steps(image).find((step) => actionOf(step) === 'docker/login-action')
    expect(login?.with?.registry).toBe('ghcr.io')
    const meta = steps(image).find((step) => actionOf(step) === 'docker/metadata-action')
    expect(String(meta?.with?.images)).toMatch(/^ghcr\.io\//)
    expect(image?.permissions?.packages).toBe('write')
  })

  it("tags the image with the tag's version and latest", () => {
    const meta = steps(jobWith('docker/build-push-action')).find(
      (step) => actionOf(step) === 'docker/metadata-action',
    )
    const tags = String(meta?.with?.tags)
      .split('\n')
      .map((line) => line.trim())
    // {{version}} is the git tag without its v: v0.2.0 pushes :0.2.0.
    expect(tags).toContain('type=semver,pattern={{version}}')
    expect(tags).toContain('type=raw,value=latest')
  })

  it('publishes the package the tag names, built by prepack from a clean install', () => {
    const npm = jobs.find((job) => steps(job).some((step) => /npm publish/.test(step.run ?? '')))
    const runs = steps(npm).map((step) => step.run ?? '')
    const publish = runs.findIndex((run) => /npm publish/.test(run))
    expect(runs.findIndex((run) => /^npm ci\b/.test(run))).toBeLessThan(publish)
    expect(runs.some((run) => /require\('\.\/package\.json'\)\.version/.test(run))).toBe(true)
  })
})
