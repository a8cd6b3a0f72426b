/* kk/tools.h -- the Kokkos Tools C ABI (interface 20240906): what a profiling or tuning tool exports and receives. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TOOLS_H
#define KK_TOOLS_H

/*
 * A tool is a shared object named by --kokkos-tools-libs, KOKKOS_TOOLS_LIBS or
 * the JSON "tools.libs".  It exports any subset of the kokkosp_* functions
 * below, with C linkage; kk looks each one up with dlsym and never calls one
 * that is missing.  A tool needs nothing from libkk: it includes this header
 * for the types only, so the same object loads into kk and into a Kokkos
 * program (the layouts below are byte for byte those of Kokkos, checked by the
 * _Static_asserts at the end).  docs/tools.md describes when each function is
 * called and with what.
 *
 *   void kokkosp_init_library(const int loadSeq, const uint64_t interfaceVer,
 *                             const uint32_t devInfoCount,
 *                             struct Kokkos_Profiling_KokkosPDeviceInfo *deviceInfo);
 *   void kokkosp_finalize_library(void);
 *   void kokkosp_parse_args(int argc, char **argv);
 *   void kokkosp_print_help(char *exeName);
 *   void kokkosp_request_tool_settings(const uint32_t num, struct Kokkos_Tools_ToolSettings *settings);
 *   void kokkosp_provide_tool_programming_interface(const uint32_t num,
 *                                                   struct Kokkos_Tools_ToolProgrammingInterface tpi);
 *   void kokkosp_begin_parallel_for(const char *name, const uint32_t devID, uint64_t *kID);
 *   void kokkosp_end_parallel_for(const uint64_t kID);          (also _reduce and _scan)
 *   void kokkosp_push_profile_region(const char *name);
 *   void kokkosp_pop_profile_region(void);
 *   void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
 *                              const void *ptr, const uint64_t size);   (also deallocate_data)
 *   void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_space, const char *dst_label,
 *                                const void *dst_ptr, struct Kokkos_Profiling_SpaceHandle src_space,
 *                                const char *src_label, const void *src_ptr, uint64_t size);
 *   void kokkosp_end_deep_copy(void);
 *   void kokkosp_begin_fence(const char *name, const uint32_t devID, uint64_t *handle);
 *   void kokkosp_end_fence(uint64_t handle);
 *   void kokkosp_create_profile_section(const char *name, uint32_t *secID);
 *   void kokkosp_start_profile_section(const uint32_t secID);   (also stop_ and destroy_)
 *   void kokkosp_profile_event(const char *name);
 *   void kokkosp_dual_view_sync(const char *label, const void *const ptr, bool to_device);
 *   void kokkosp_dual_view_modify(const char *label, const void *const ptr, bool on_device);
 *   void kokkosp_declare_metadata(const char *key, const char *value);
 *   void kokkosp_declare_output_type(const char *name, const size_t id, struct Kokkos_Tools_VariableInfo *info);
 *   void kokkosp_declare_input_type(const char *name, const size_t id, struct Kokkos_Tools_VariableInfo *info);
 *   void kokkosp_request_values(const size_t ctx, const size_t nContext,
 *                               const struct Kokkos_Tools_VariableValue *contextValues,
 *                               const size_t nTuning, struct Kokkos_Tools_VariableValue *tuningValues);
 *   void kokkosp_begin_context(const size_t ctx);
 *   void kokkosp_end_context(const size_t ctx, struct Kokkos_Tools_VariableValue value);
 *   void kokkosp_declare_optimization_goal(const size_t ctx, const struct Kokkos_Tools_OptimizationGoal goal);
 *
 * Device ids (devID): bits 31..24 the device type (Serial 0, OpenMP 1, Cuda 2,
 * HIP 3, OpenMPTarget 4, HPX 5, Threads 6, SYCL 7, OpenACC 8; a third-party
 * backend declares its own, >= 32), bits 23..17 the device number, bits 16..0
 * the instance: 0 for a global fence, 1 for a backend's default instance, 2,
 * 3, ... for created instances.  The fence of the resource a synchronous deep
 * copy waits on reports type << 24 | 0xFFFFFF.
 */

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The interface version kk passes to kokkosp_init_library (Kokkos 4.5). */
#define KOKKOSP_INTERFACE_VERSION 20240906

/* ---- device ids ----------------------------------------------------------- */

/* Taking a device id apart. */
#define KOKKOS_TOOLS_DEVICE_TYPE_OF(devid) ((uint32_t)(devid) >> 24)
#define KOKKOS_TOOLS_DEVICE_NUMBER_OF(devid) (((uint32_t)(devid) >> 17) & 0x7Fu)
#define KOKKOS_TOOLS_INSTANCE_OF(devid) ((uint32_t)(devid) & 0x1FFFFu)

/* ---- profiling ------------------------------------------------------------ */

/* Never filled in: kokkosp_init_library always gets a count of 0 and NULL. */
struct Kokkos_Profiling_KokkosPDeviceInfo {
  size_t deviceID;
};

/* A memory space by its Kokkos name ("Host", "Cuda", ...), zero padded,
 * passed by value. */
struct Kokkos_Profiling_SpaceHandle {
  char name[64];
};

/* The signatures of the kokkosp_* callbacks a tool library exports, as
 * Kokkos declares them (docs/tools.md):
 * init and finalize, argument parsing and help, kernels, regions, data,
 * sections, events, deep copies, fences, DualViews and metadata. */
typedef void (*Kokkos_Profiling_initFunction)(const int, const uint64_t, const uint32_t,
                                              struct Kokkos_Profiling_KokkosPDeviceInfo *);
typedef void (*Kokkos_Profiling_finalizeFunction)(void);
typedef void (*Kokkos_Profiling_parseArgsFunction)(int, char **);
typedef void (*Kokkos_Profiling_printHelpFunction)(char *);
typedef void (*Kokkos_Profiling_beginFunction)(const char *, const uint32_t, uint64_t *);
typedef void (*Kokkos_Profiling_endFunction)(uint64_t);
typedef void (*Kokkos_Profiling_pushFunction)(const char *);
typedef void (*Kokkos_Profiling_popFunction)(void);
typedef void (*Kokkos_Profiling_allocateDataFunction)(const struct Kokkos_Profiling_SpaceHandle, const char *,
                                                      const void *, const uint64_t);
typedef void (*Kokkos_Profiling_deallocateDataFunction)(const struct Kokkos_Profiling_SpaceHandle, const char *,
                                                        const void *, const uint64_t);
typedef void (*Kokkos_Profiling_createProfileSectionFunction)(const char *, uint32_t *);
typedef void (*Kokkos_Profiling_startProfileSectionFunction)(const uint32_t);
typedef void (*Kokkos_Profiling_stopProfileSectionFunction)(const uint32_t);
typedef void (*Kokkos_Profiling_destroyProfileSectionFunction)(const uint32_t);
typedef void (*Kokkos_Profiling_profileEventFunction)(const char *);
typedef void (*Kokkos_Profiling_beginDeepCopyFunction)(struct Kokkos_Profiling_SpaceHandle, const char *, const void *,
                                                       struct Kokkos_Profiling_SpaceHandle, const char *, const void *,
                                                       uint64_t);
typedef void (*Kokkos_Profiling_endDeepCopyFunction)(void);
typedef void (*Kokkos_Profiling_beginFenceFunction)(const char *, const uint32_t, uint64_t *);
typedef void (*Kokkos_Profiling_endFenceFunction)(uint64_t);
typedef void (*Kokkos_Profiling_dualViewSyncFunction)(const char *, const void *const, bool);
typedef void (*Kokkos_Profiling_dualViewModifyFunction)(const char *, const void *const, bool);
typedef void (*Kokkos_Profiling_declareMetadataFunction)(const char *, const char *);

/* ---- what a tool asks for and what it may call ------------------------------ */

/* A tool may fence every device (all instances) through the programming
 * interface; the argument is a device id, which kk (like Kokkos) ignores. */
typedef void (*Kokkos_Tools_toolInvokedFenceFunction)(const uint32_t);
typedef void (*Kokkos_Tools_functionPointer)(void);

/* What kk hands a tool's kokkosp_provide_tool_programming_interface: the
 * fence above, then padding (Kokkos' layout). */
struct Kokkos_Tools_ToolProgrammingInterface {
  Kokkos_Tools_toolInvokedFenceFunction fence;
  Kokkos_Tools_functionPointer padding[31];
};

/* requires_global_fencing arrives preset to true: a tool that leaves it so
 * gets a global fence before every begin/end of a kernel and every push/pop
 * of a region, so that host timestamps bracket the device work. */
struct Kokkos_Tools_ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

/* The signatures of kokkosp_provide_tool_programming_interface and
 * kokkosp_request_tool_settings. */
typedef void (*Kokkos_Tools_provideToolProgrammingInterfaceFunction)(const uint32_t,
                                                                     struct Kokkos_Tools_ToolProgrammingInterface);
typedef void (*Kokkos_Tools_requestToolSettingsFunction)(const uint32_t, struct Kokkos_Tools_ToolSettings *);

/* ---- tuning ------------------------------------------------------------------ */

/* The tuning interface's types, exactly as Kokkos Tools declares them
 * (docs/tools.md): a string
 * value's length and type, */
#define KOKKOS_TOOLS_TUNING_STRING_LENGTH 64
typedef char Kokkos_Tools_Tuning_String[KOKKOS_TOOLS_TUNING_STRING_LENGTH];

/* one value of a tuning variable, */
union Kokkos_Tools_VariableValue_ValueUnion {
  int64_t int_value;
  double double_value;
  Kokkos_Tools_Tuning_String string_value;
};

/* the values of a candidate set, */
union Kokkos_Tools_VariableValue_ValueUnionSet {
  int64_t *int_value;
  double *double_value;
  Kokkos_Tools_Tuning_String *string_value;
};

/* a candidate set: its size and values, */
struct Kokkos_Tools_ValueSet {
  size_t size;
  union Kokkos_Tools_VariableValue_ValueUnionSet values;
};

/* whether a goal is minimized or maximized, */
enum Kokkos_Tools_OptimizationType { Kokkos_Tools_Minimize, Kokkos_Tools_Maximize };

/* the goal of a tuning context, */
struct Kokkos_Tools_OptimizationGoal {
  size_t type_id;
  enum Kokkos_Tools_OptimizationType goal;
};

/* a candidate range: bounds, step, whether each bound is open, */
struct Kokkos_Tools_ValueRange {
  union Kokkos_Tools_VariableValue_ValueUnion lower;
  union Kokkos_Tools_VariableValue_ValueUnion upper;
  union Kokkos_Tools_VariableValue_ValueUnion step;
  bool openLower;
  bool openUpper;
};

/* a variable's value type, */
enum Kokkos_Tools_VariableInfo_ValueType { kokkos_value_double, kokkos_value_int64, kokkos_value_string };

/* what its values mean, */
enum Kokkos_Tools_VariableInfo_StatisticalCategory {
  kokkos_value_categorical, /* distinct values without order */
  kokkos_value_ordinal,     /* ordered */
  kokkos_value_interval,    /* ordered, differences mean something */
  kokkos_value_ratio        /* ordered, with a true zero: ratios mean something */
};

/* which values it may take, */
enum Kokkos_Tools_VariableInfo_CandidateValueType {
  kokkos_value_set,      /* one of the values in candidates.set */
  kokkos_value_range,    /* within candidates.range */
  kokkos_value_unbounded /* not known in advance (input variables only) */
};

/* its candidates, */
union Kokkos_Tools_VariableInfo_SetOrRange {
  struct Kokkos_Tools_ValueSet set;
  struct Kokkos_Tools_ValueRange range;
};

/* everything declared about a variable, */
struct Kokkos_Tools_VariableInfo {
  enum Kokkos_Tools_VariableInfo_ValueType type;
  enum Kokkos_Tools_VariableInfo_StatisticalCategory category;
  enum Kokkos_Tools_VariableInfo_CandidateValueType valueQuantity;
  union Kokkos_Tools_VariableInfo_SetOrRange candidates;
  void *toolProvidedInfo;
};

/* a variable's value as kk passes it to the tool and back, */
struct Kokkos_Tools_VariableValue {
  size_t type_id;
  union Kokkos_Tools_VariableValue_ValueUnion value;
  struct Kokkos_Tools_VariableInfo *metadata;
};

/* and the signatures of the tuning callbacks (kokkosp_declare_output_type,
 * kokkosp_declare_input_type, kokkosp_request_values,
 * kokkosp_begin_context, kokkosp_end_context,
 * kokkosp_declare_optimization_goal). */
typedef void (*Kokkos_Tools_outputTypeDeclarationFunction)(const char *, const size_t,
                                                           struct Kokkos_Tools_VariableInfo *info);
typedef void (*Kokkos_Tools_inputTypeDeclarationFunction)(const char *, const size_t,
                                                          struct Kokkos_Tools_VariableInfo *info);
typedef void (*Kokkos_Tools_requestValueFunction)(const size_t, const size_t,
                                                  const struct Kokkos_Tools_VariableValue *, const size_t count,
                                                  struct Kokkos_Tools_VariableValue *);
typedef void (*Kokkos_Tools_contextBeginFunction)(const size_t);
typedef void (*Kokkos_Tools_contextEndFunction)(const size_t, struct Kokkos_Tools_VariableValue);
typedef void (*Kokkos_Tools_optimizationGoalDeclarationFunction)(const size_t,
                                                                 const struct Kokkos_Tools_OptimizationGoal goal);

/* ---- the whole set of callbacks ---------------------------------------------- */

/* Every callback kk can call, in Kokkos' order: what a loaded tool's kokkosp_*
 * symbols fill, and what kk_tools_set_callbacks() takes from a program that
 * profiles itself.  NULL members are never called.  The padding keeps room
 * for callbacks a later interface adds without moving the tuning members. */
struct Kokkos_Profiling_EventSet {
  Kokkos_Profiling_initFunction init;
  Kokkos_Profiling_finalizeFunction finalize;
  Kokkos_Profiling_parseArgsFunction parse_args;
  Kokkos_Profiling_printHelpFunction print_help;
  Kokkos_Profiling_beginFunction begin_parallel_for;
  Kokkos_Profiling_endFunction end_parallel_for;
  Kokkos_Profiling_beginFunction begin_parallel_reduce;
  Kokkos_Profiling_endFunction end_parallel_reduce;
  Kokkos_Profiling_beginFunction begin_parallel_scan;
  Kokkos_Profiling_endFunction end_parallel_scan;
  Kokkos_Profiling_pushFunction push_region;
  Kokkos_Profiling_popFunction pop_region;
  Kokkos_Profiling_allocateDataFunction allocate_data;
  Kokkos_Profiling_deallocateDataFunction deallocate_data;
  Kokkos_Profiling_createProfileSectionFunction create_profile_section;
  Kokkos_Profiling_startProfileSectionFunction start_profile_section;
  Kokkos_Profiling_stopProfileSectionFunction stop_profile_section;
  Kokkos_Profiling_destroyProfileSectionFunction destroy_profile_section;
  Kokkos_Profiling_profileEventFunction profile_event;
  Kokkos_Profiling_beginDeepCopyFunction begin_deep_copy;
  Kokkos_Profiling_endDeepCopyFunction end_deep_copy;
  Kokkos_Profiling_beginFenceFunction begin_fence;
  Kokkos_Profiling_endFenceFunction end_fence;
  Kokkos_Profiling_dualViewSyncFunction sync_dual_view;
  Kokkos_Profiling_dualViewModifyFunction modify_dual_view;
  Kokkos_Profiling_declareMetadataFunction declare_metadata;
  Kokkos_Tools_provideToolProgrammingInterfaceFunction provide_tool_programming_interface;
  Kokkos_Tools_requestToolSettingsFunction request_tool_settings;
  char profiling_padding[9 * sizeof(Kokkos_Tools_functionPointer)];
  Kokkos_Tools_outputTypeDeclarationFunction declare_output_type;
  Kokkos_Tools_inputTypeDeclarationFunction declare_input_type;
  Kokkos_Tools_requestValueFunction request_output_values;
  Kokkos_Tools_contextBeginFunction begin_tuning_context;
  Kokkos_Tools_contextEndFunction end_tuning_context;
  Kokkos_Tools_optimizationGoalDeclarationFunction declare_optimization_goal;
  char padding[232 * sizeof(Kokkos_Tools_functionPointer)];
};

/* C tools may name the types without `struct`, as C++ tools do. */
typedef struct Kokkos_Profiling_KokkosPDeviceInfo Kokkos_Profiling_KokkosPDeviceInfo;
typedef struct Kokkos_Profiling_SpaceHandle Kokkos_Profiling_SpaceHandle;
typedef struct Kokkos_Tools_ToolProgrammingInterface Kokkos_Tools_ToolProgrammingInterface;
typedef struct Kokkos_Tools_ToolSettings Kokkos_Tools_ToolSettings;
typedef struct Kokkos_Tools_ValueSet Kokkos_Tools_ValueSet;
typedef struct Kokkos_Tools_OptimizationGoal Kokkos_Tools_OptimizationGoal;
typedef struct Kokkos_Tools_ValueRange Kokkos_Tools_ValueRange;
typedef struct Kokkos_Tools_VariableInfo Kokkos_Tools_VariableInfo;
typedef struct Kokkos_Tools_VariableValue Kokkos_Tools_VariableValue;
typedef struct Kokkos_Profiling_EventSet Kokkos_Profiling_EventSet;

/* ---- the layout, checked where it is defined (LP64) ----------------------------- */

#ifdef __cplusplus
#define KOKKOS_TOOLS_STATIC_ASSERT_(cond, msg) static_assert(cond, msg)
#else
#define KOKKOS_TOOLS_STATIC_ASSERT_(cond, msg) _Static_assert(cond, msg)
#endif
#if defined(__LP64__) || defined(_LP64)
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Profiling_KokkosPDeviceInfo) == 8, "KokkosPDeviceInfo is 8 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Profiling_SpaceHandle) == 64, "SpaceHandle is 64 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Tools_ToolSettings) == 256, "ToolSettings is 256 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Tools_ToolProgrammingInterface) == 32 * 8,
                            "ToolProgrammingInterface is 32 pointers");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Profiling_EventSet) == 275 * 8, "EventSet is 275 pointers");
KOKKOS_TOOLS_STATIC_ASSERT_(offsetof(struct Kokkos_Profiling_EventSet, request_tool_settings) == 27 * 8,
                            "EventSet: 28 named profiling callbacks");
KOKKOS_TOOLS_STATIC_ASSERT_(offsetof(struct Kokkos_Profiling_EventSet, declare_output_type) == 37 * 8,
                            "EventSet: 9 pointers of profiling padding before the tuning callbacks");
KOKKOS_TOOLS_STATIC_ASSERT_(offsetof(struct Kokkos_Profiling_EventSet, padding) == 43 * 8,
                            "EventSet: 6 tuning callbacks");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(union Kokkos_Tools_VariableValue_ValueUnion) == 64, "value union is 64 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Tools_ValueSet) == 16, "ValueSet is 16 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Tools_ValueRange) == 200, "ValueRange is 200 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Tools_VariableInfo) == 224, "VariableInfo is 224 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(offsetof(struct Kokkos_Tools_VariableInfo, candidates) == 16,
                            "VariableInfo: three enums before the candidates");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Tools_VariableValue) == 80, "VariableValue is 80 bytes");
KOKKOS_TOOLS_STATIC_ASSERT_(sizeof(struct Kokkos_Tools_OptimizationGoal) == 16, "OptimizationGoal is 16 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* KK_TOOLS_H */
