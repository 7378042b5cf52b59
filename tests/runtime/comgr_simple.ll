target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @scale(ptr addrspace(1) %out, float %a) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %idx = zext i32 %id to i64
  %p = getelementptr float, ptr addrspace(1) %out, i64 %idx
  %v = load float, ptr addrspace(1) %p, align 4
  %m = fmul float %v, %a
  store float %m, ptr addrspace(1) %p, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
