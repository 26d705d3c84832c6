// Every test file starts from an environment of its own: no CONFORMANCE_* setting of the contributor's shell, and no
// .env of theirs (a test that read one would send their key to their deployment). Tests that need a setting give it.
for (const name of Object.keys(process.env)) if (name.startsWith('CONFORMANCE_')) delete process.env[name];
process.env['CONFORMANCE_ENV_FILE'] = '';
