import type { Check, Finding } from '../../src/engine/run/check.ts';
import { judge, finding, skip, Unavailable } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import { READONLY_LIST } from '../shares.ts';

/**
 * Whether the read-only key is known to share the primary key's organization: it sees the VM the primary created.
 * A list shows the caller's own VMs (security.cross-org-objects holds another organization to that), so seeing it is evidence.
 */
async function readonlySharesOrganization(ctx: CheckContext): Promise<{ shares: boolean; why: string }> {
  try {
    const vmId = await ctx.objects.createdVmId();
    const { walk } = await ctx.objects.findInList([(await ctx.objects.acceptedVm()).name], 'readonly');
    if (walk.items.some((v) => v['id'] === vmId))
      return {
        shares: true,
        why: `--api-key-readonly lists the VM --api-key created (${vmId}${walk.scope ? `, among ${walk.scope}` : ''})`,
      };
    return {
      shares: false,
      why: `--api-key-readonly does not list the VM --api-key created (${walk.complete ? `${walk.items.length} VMs` : walk.stoppedBecause})`,
    };
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    return { shares: false, why: `no VM of the run to compare lists with (${err.message})` };
  }
}

/**
 * organization identifies the organization that owns the key: keys of different organizations name different ones,
 * and two keys of one organization (told apart from outside by one seeing the other's VMs) name the same one.
 */
export const tokenOrganization: Check = {
  id: 'auth.token-organization',
  group: 'auth',
  // It waits for the run's VM and reads the read-only key's view of the list: beside the API track and that key's probes.
  shares: [READONLY_LIST],
  clauses: ['AUTH-TOKEN-ORGANIZATION'],
  level: 'must',
  why: { must: 'the seed says organization identifies the organization that owns the key' },
  title:
    'Tokens of keys from different organizations name different organizations; keys of one organization name the same',
  async run(ctx) {
    const org = async (key: 'primary' | 'second' | 'readonly') => (await ctx.tokens.response(key))['organization'];
    const primary = await org('primary');
    // A missing or non-string organization is auth.token-shape's finding; there is nothing to compare.
    if (typeof primary !== 'string')
      return skip(
        `the primary key's token response carries no string organization (${JSON.stringify(primary)}); see auth.token-shape`,
        'a token response with an organization string'
      );
    const findings: Finding[] = [];
    const compared: string[] = [];
    const notCompared: string[] = [];
    if (ctx.tokens.has('second')) {
      const second = await org('second');
      if (typeof second !== 'string') notCompared.push('--api-key-b (no organization string)');
      else {
        compared.push('--api-key-b names another organization');
        if (second === primary)
          findings.push(
            finding('must', `the keys of two organizations both name organization ${JSON.stringify(primary)}`, [], {
              primary,
              second,
            })
          );
      }
    } else notCompared.push('--api-key-b (not given)');
    if (ctx.tokens.has('readonly')) {
      const evidence = await readonlySharesOrganization(ctx);
      const readonly = await org('readonly');
      if (!evidence.shares) notCompared.push(`--api-key-readonly (${evidence.why})`);
      else if (typeof readonly !== 'string') notCompared.push('--api-key-readonly (no organization string)');
      else {
        compared.push('--api-key-readonly names the same organization');
        if (readonly !== primary)
          findings.push(
            finding(
              'must',
              `two keys of one organization name different organizations (${JSON.stringify(primary)} and ${JSON.stringify(readonly)}): ${evidence.why}`,
              [],
              { primary, readonly }
            )
          );
      }
    } else notCompared.push('--api-key-readonly (not given)');
    if (compared.length === 0) {
      return skip(
        `no second key to compare with: ${notCompared.join('; ')}`,
        '--api-key-b KEY (a key of a second organization), or --api-key-readonly KEY of the same organization with --image and --subnet-id'
      );
    }
    return judge(
      findings,
      `${compared.join('; ')}${notCompared.length ? ` (not compared: ${notCompared.join('; ')})` : ''}`,
      [],
      { primary }
    );
  },
};
