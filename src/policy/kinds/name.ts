/**
 * The Ray kinds' names, in a module of their own with no imports: the version table names the kinds that
 * each Kueue version's MultiKueue dispatches, and the kind adapters read the version table, so the names
 * sit below both.
 */
export type RayKindName = 'RayJob' | 'RayCluster' | 'RayService';
