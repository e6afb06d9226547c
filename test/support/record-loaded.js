// Preloaded with `node -r`: on exit, writes every module file the process loaded (require.cache) to
// $RECORD_LOADED_TO, so a test can tell which parts of src a CLI subcommand pulled in.
const fs = require('fs');

process.on('exit', () => {
  fs.writeFileSync(process.env.RECORD_LOADED_TO, JSON.stringify(Object.keys(require.cache)));
});
