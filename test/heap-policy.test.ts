import { describe, expect, it } from 'vitest'
import { heapPolicyFlags } from '../src/cli/heap-policy.js'

// What the policy does to memory is what the soak measures (test/soak/: RSS at most x1.25
// under load; without the policy it reached x1.26-x1.29 on a 24 GiB machine), and what it
// does to speed is the benchmarks'. Here: which flags the CLI sets, and that a setting given
// to node itself wins.
describe('the CLI heap policy', () => {
  it('caps heap growth at 50% over the live data and turns pretenuring off by default', () => {
    const policy = ['--heap-growing-percent=50', '--no-allocation-site-pretenuring']
    expect(heapPolicyFlags([])).toEqual(policy)
    expect(heapPolicyFlags(['--enable-source-maps'])).toEqual(policy)
  })

  it('leaves a growing percent given to node alone, in either spelling', () => {
    const rest = ['--no-allocation-site-pretenuring']
    expect(heapPolicyFlags(['--heap-growing-percent=300'])).toEqual(rest)
    expect(heapPolicyFlags(['--heap_growing_percent=10'])).toEqual(rest)
    expect(heapPolicyFlags(['--heap-growing-percent'])).toEqual(rest)
    expect(heapPolicyFlags(['--heap-growing-percentage=3'])).toEqual([
      '--heap-growing-percent=50',
      ...rest,
    ])
  })

  it('leaves pretenuring as node was told, on or off, in either spelling', () => {
    const rest = ['--heap-growing-percent=50']
    expect(heapPolicyFlags(['--allocation-site-pretenuring'])).toEqual(rest)
    expect(heapPolicyFlags(['--no-allocation-site-pretenuring'])).toEqual(rest)
    expect(heapPolicyFlags(['--no_allocation_site_pretenuring'])).toEqual(rest)
    expect(heapPolicyFlags(['--allocation-site-pretenuring-x'])).toEqual([
      ...rest,
      '--no-allocation-site-pretenuring',
    ])
  })
})
