import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

// Workflow (c) of issue 10 against the default sandbox world. The app and the group are named as
// check_connection lists them in the sandbox; the share id is read from the previous results.
const APP = 'app_demo';
const GROUP = 'grp_design';

interface Share {
  share_id: string;
  group_id: string;
  role: string;
}

describe('workflow (c): share with groups -> list shares -> update role -> remove -> list', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  const shares = async () => {
    const listed = await h.call('list_group_shares', { app_id: APP });
    expect(listed.isError, listed.text).toBe(false);
    return { listed, rows: listed.structured?.shares as Share[] };
  };

  it('shares the app with a group, changes its role, and unshares it', async () => {
    // 1. Share: the group is newly shared with the default role.
    const shared = await h.call('share_app_with_groups', { app_id: APP, group_ids: [GROUP] });
    expect(shared.isError, shared.text).toBe(false);
    expect(shared.structured?.shared).toEqual([GROUP]);
    expect(shared.text).toContain('(default role user)');

    // 2. List: the new share has a share_id, and the next step names update_group_share.
    const { listed, rows } = await shares();
    const share = rows.find((row) => row.group_id === GROUP)!;
    expect(share).toBeDefined();
    expect(share.role).toBe('');
    expect(listed.text).toContain(`- share ${share.share_id}: group ${GROUP} ("Design"), default role (user)`);
    expect(listed.text).toContain('update_group_share');
    expect(listed.text).toContain('remove_group_share');
    expect(shared.structured?.share_ids).toEqual([{ group_id: GROUP, share_id: share.share_id }]);

    // 3. Update the role: the group's members now get editor.
    const updated = await h.call('update_group_share', { app_id: APP, share_id: share.share_id, role: 'editor' });
    expect(updated.isError, updated.text).toBe(false);
    expect(updated.structured).toMatchObject({ share_id: share.share_id, group_id: GROUP, role: 'editor' });
    expect(updated.text).toContain('now gives its members role "editor"');
    expect((await shares()).rows.find((row) => row.share_id === share.share_id)?.role).toBe('editor');

    // 4. Remove: no confirmation; it says who loses access.
    const removed = await h.call('remove_group_share', { app_id: APP, share_id: share.share_id });
    expect(removed.isError, removed.text).toBe(false);
    expect(removed.structured?.removed).toBe(true);
    expect(removed.text).toContain('Members who had access only through this group lost it');

    // 5. List again: the share is gone, the app's other share stays.
    const after = await shares();
    expect(after.rows.map((row) => row.share_id)).not.toContain(share.share_id);
    expect(after.rows.map((row) => row.group_id)).toEqual(['grp_support']);
  });
});
