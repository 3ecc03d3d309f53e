import { main } from './cli.ts';

await main(process.argv.slice(2));
