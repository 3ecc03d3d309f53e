/**
 * The job queue as other modules use it: a job added with the caller's transaction handle, or
 * inserted inside the caller's own statement (the fragments of store.ts, which holds the queue's
 * SQL).
 */
export {
  enqueueJob,
  insertJobsFrom,
  insertJobsFromArrays,
  jobArrays,
  type NewJob,
} from './store.ts';
