import { describe, expect, it } from 'vitest'
import { heapPolicyFlag } from '../src/cli/heap-policy.js'

// What the policy does to memory is what the soak measures (test/soak/: RSS at most x1.25
// under load; without the policy it reached x1.26-x1.29 on a 24 GiB machine). Here: which
// flag the CLI sets, and that a growing percent given to node itself wins.
describe('the CLI heap policy', () => {
  it('caps heap growth at 50% over the live data by default', () => {
    expect(heapPolicyFlag([])).toBe('--heap-growing-percent=50')
    expect(heapPolicyFlag(['--enable-source-maps'])).toBe('--heap-growing-percent=50')
  })

  it('leaves a growing percent given to node alone, in either spelling', () => {
    expect(heapPolicyFlag(['--heap-growing-percent=300'])).toBeUndefined()
    expect(heapPolicyFlag(['--heap_growing_percent=10'])).toBeUndefined()
    expect(heapPolicyFlag(['--heap-growing-percent'])).toBeUndefined()
    expect(heapPolicyFlag(['--heap-growing-percentage=3'])).toBe('--heap-growing-percent=50')
  })
})
