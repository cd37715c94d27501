"""The NVIDIA driver's Xid events: number, mnemonic, NVIDIA's description, the catalog's immediate and
investigatory resolution buckets, and the group this project answers each by. Written by hand: the
Xid catalog is a spreadsheet on NVIDIA's documentation site, which the build cannot reach, and no
PyPI package carries it.

What a paste shows is the kernel driver's line (dmesg, journalctl -k, /var/log/messages):
"NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus." — the GPU's PCI address, the
Xid, then whatever that Xid's handler adds (the process, a channel, an MMU fault's address).

- ROWS: NVIDIA's "Xid Errors" catalog for Ampere and newer GPUs ("Analyzing Xid Errors with the Xid
  Catalog", docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, its "Catalog" sheet, as of
  2025-10): Code, Mnemonic, Description, Resolution Bucket (Immediate Action), Resolution Bucket
  (Investigatory Action). The mnemonics are the driver's own (open-gpu-kernel-modules,
  src/common/sdk/nvidia/inc/nverror.h). Only the Xids the catalog does not mark "Unused".
- GROUP (this project's reading of those buckets, not NVIDIA's words): "application" where the
  catalog's investigation is the application or CUDA (CHECK_APP/CUDA, WORKFLOW_XID_13/31: the driver
  reporting a fault of the program's own kernels: the CUDA error the program printed is the cause to
  follow), "cleanup" for 45 (a channel torn down after another error), "notice" for events the
  catalog says to IGNORE at once and that stop nothing (63: a row remapped, 92: many corrected
  single-bit errors); every other group is the GPU, its memory, its links or the driver's firmware,
  which no setting of the program causes: "memory" (ECC, row remapping), "bus" (the GPU lost from
  PCIe), "firmware" (GSP, the PMU, context-switch and GPU timeouts), "nvlink", "c2c".

The catalog's buckets (its "Resolution Buckets" legend): RESTART_APP (restart the application),
RESET_GPU (reset the GPU: `nvidia-smi -r`, or reboot), RESTART_BM (reboot the machine), RESTART_VM,
CHECK_MECHANICALS, UPDATE_SWFW (update the driver and firmware), CONTACT_SUPPORT, IGNORE,
WORKFLOW_* (the catalog's own procedure for that Xid).
"""

from __future__ import annotations

SOURCE = ("NVIDIA Xid Errors catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, "
          "Catalog sheet, 2025-10), by hand; groups: this project's reading of its resolution buckets")

# (number, mnemonic, description, immediate action, investigatory action, group)
ROWS = [
    (8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing", "RESTART_APP", "CONTACT_SUPPORT", "firmware"),
    (11, "ROBUST_CHANNEL_GR_ERROR_MISSING_HW", "Invalid or corrupted push buffer stream", "RESTART_APP", "CHECK_APP/CUDA",
     "application"),
    (13, "ROBUST_CHANNEL_GR_EXCEPTION", "Graphics Engine Exception", "RESTART_APP", "WORKFLOW_XID_13", "application"),
    (25, "ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY", "Invalid or illegal push buffer stream", "RESTART_APP", "CHECK_APP/CUDA",
     "application"),
    (31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault", "RESTART_APP", "WORKFLOW_XID_31", "application"),
    (32, "ROBUST_CHANNEL_PBDMA_ERROR", "Invalid or corrupted push buffer stream", "RESTART_APP", "CHECK_APP/CUDA",
     "application"),
    (38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "Driver firmware error", "IGNORE", "CONTACT_SUPPORT", "firmware"),
    (39, "ROBUST_CHANNEL_CE0_ERROR", "Copy Engine Exception", "RESTART_APP", "CONTACT_SUPPORT", "firmware"),
    (40, "ROBUST_CHANNEL_CE1_ERROR", "Copy Engine Exception", "RESTART_APP", "CONTACT_SUPPORT", "firmware"),
    (41, "ROBUST_CHANNEL_CE2_ERROR", "Copy Engine Exception", "RESTART_APP", "CONTACT_SUPPORT", "firmware"),
    (43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped processing", "IGNORE", "CONTACT_SUPPORT", "application"),
    (44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", "Graphics Engine fault during context switch", "IGNORE",
     "CONTACT_SUPPORT", "firmware"),
    (45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "Preemptive cleanup, due to previous errors -- Most likely to see when "
     "running multiple cuda applications and hitting a DBE", "WORKFLOW_XID_45",
     "Solo: RESTART_FM; Not Solo: IGNORE (follow other Xid)", "cleanup"),
    (46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing", "RESET_GPU", "CONTACT_SUPPORT", "firmware"),
    (48, "ROBUST_CHANNEL_GPU_ECC_DBE", "Double Bit ECC Error", "WORKFLOW_XID_48", "WORKFLOW_XID_48", "memory"),
    (54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING", "Auxiliary power is not connected to the GPU board", "CHECK_MECHANICALS",
     "CONTACT_SUPPORT", "bus"),
    (60, "ROBUST_CHANNEL_SEC2_ERROR", "Video processor exception", "RESTART_APP", "INVESTIGATE_SW", "firmware"),
    (62, "PMU_HALT_ERROR", "Internal micro-controller halt (newer drivers)", "RESET_GPU", "CONTACT_SUPPORT", "firmware"),
    (63, "INFOROM_DRAM_RETIREMENT_EVENT", "GPU memory remapping event", "IGNORE", "IGNORE", "notice"),
    (64, "INFOROM_DRAM_RETIREMENT_FAILURE", "GPU memory remapping failure", "RESET_GPU", "CONTACT_SUPPORT", "memory"),
    (68, "ROBUST_CHANNEL_NVDEC0_ERROR", "NVDEC0 Exception", "RESTART_APP", "CONTACT_SUPPORT", "firmware"),
    (69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "Graphics Engine class error", "RESTART_APP", "CHECK_APP/CUDA", "application"),
    (74, "NVLINK_ERROR", "NVLINK Error", "WORKFLOW_NVLINK_ERR", "CONTACT_SUPPORT", "nvlink"),
    (78, "VGPU_START_ERROR", "vGPU Start Error", "UPDATE_SWFW", "UPDATE_SWFW", "firmware"),
    (79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU has fallen off the bus", "RESTART_BM", "CONTACT_SUPPORT", "bus"),
    (80, "PBDMA_PUSHBUFFER_CRC_MISMATCH", "Corrupted data sent to GPU", "RESTART_APP", "CHECK_APP/CUDA", "application"),
    (92, "EXCESSIVE_SBE_INTERRUPTS", "High single-bit ECC error rate", "IGNORE", "CONTACT_SUPPORT", "notice"),
    (93, "INFOROM_ERASE_LIMIT_EXCEEDED", "Non-fatal violation of provisioned InfoROM wear limit", "IGNORE",
     "CONTACT_SUPPORT", "notice"),
    (94, "ROBUST_CHANNEL_CONTAINED_ERROR", "Contained memory error", "RESTART_APP", "IGNORE (sympathetic)", "memory"),
    (95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "Uncontained memory error", "RESET_GPU", "IGNORE (sympathetic)", "memory"),
    (109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "Context Switch Timeout Error", "RESET_GPU", "CONTACT_SUPPORT", "firmware"),
    (110, "SEC_FAULT_ERROR", "Security Fault Error", "RESET_GPU", "INVESTIGATE_SW", "firmware"),
    (119, "GSP_RPC_TIMEOUT", "GSP RPC Timeout", "RESET_GPU", "INVESTIGATE_SW", "firmware"),
    (120, "GSP_ERROR", "GSP Error", "RESET_GPU", "INVESTIGATE_SW", "firmware"),
    (121, "C2C_ERROR", "C2C Error", "IGNORE", "CONTACT_SUPPORT", "c2c"),
    (136, "ALI_TRAINING_FAIL", "Link Training Failed", "RESET_GPU", "INVESTIGATE_LINK_SI", "nvlink"),
    (137, "NVLINK_PRIV_ERR", "NVLink Privilege Error", "IGNORE", "XID_137_FLOW", "nvlink"),
    (140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "ECC Unrecovered Error", "RESET_GPU", "CONTACT_SUPPORT", "memory"),
    (143, "GPU_INIT_ERROR", "GPU Initialization Error", "RESET_GPU", "CONTACT_SUPPORT", "firmware"),
    # NVLink5's units (the catalog's "XID 144-150 Decode" sheet breaks each down by its status bits)
    *((n, f"NVLINK_{unit}_ERROR", f"NVLINK: {unit} Error", "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR", "nvlink")
      for n, unit in zip(range(144, 151), ("SAW", "RLW", "TLW", "TREX", "NVLPW_CTRL", "NETIR", "MSE"))),
    (154, "GPU_RECOVERY_ACTION_CHANGED", "GPU Recovery Action Changed", "XID_154",
     "N/A Informational only regarding another Xid", "notice"),
    (155, "NVLINK_SW_DEFINED_ERROR", "NVLINK: SW Defined Error", "RESET_GPU", "INVESTIGATE_SW_USER", "nvlink"),
    (156, "RESOURCE_RETIREMENT_EVENT", "Resource Retirement Event", "RESET_GPU", "IGNORE", "memory"),
    (157, "RESOURCE_RETIREMENT_FAILURE", "Resource Retirement Failure", "IGNORE", "CONTACT_SUPPORT", "memory"),
    (158, "GPU_FATAL_TIMEOUT", "GPU Fatal Timeout", "RESET_GPU", "CONTACT_SUPPORT", "firmware"),
]


def build() -> dict:
    return {"codes": [list(r) for r in ROWS], "source": [SOURCE]}
